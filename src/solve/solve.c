/* Solver set-up and bookkeeping (solve.h). A solve's space (its buffers,
 * registers and, across GPUs, its recorded iteration) and its work vectors
 * are kept on the plan for the next solve (spx_solve_opts.keep_workspace,
 * core/keep.h): on 2 H200s a 100-iteration CG on lap3d7:64 spent 3.8 ms
 * making them and 2.5 ms freeing them, about as long as its iterations
 * (run MF). A kept vector is zeroed again, as a new one is. The Jacobi preconditioner is
 * M = diag(A): dinv[k] = 1 / A(i,i) for the plan's k-th entry, i = perm[k]
 * (spx_plan_permutation; the identity unless the plan reorders with
 * vectors=permuted). A zero or missing diagonal entry cannot be inverted:
 * SPX_ERR_UNSUPPORTED naming the row. */
#include "solve/solve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/keep.h"
#include "core/matrix.h"
#include "core/threads.h"
#include "cuda/gateway.h"
#include "multi/multi.h"
#include "plan/format.h"

/* What a solve keeps on its plan: its space and nvec work vectors. */
typedef struct spx__solve_kept {
    spx__vspace s;
    int nvec;
    void *v[SPX__SOLVE_MAX_VECTORS];
} spx__solve_kept;

static void kept_free(void *p)
{
    spx__solve_kept *k = p;
    for (int i = 0; i < k->nvec; i++)
        spx__v_free(&k->s, k->v[i]);
    spx__vspace_free(&k->s);
    spx__free(k);
}

spx_solve_opts spx_solve_opts_default(void)
{
    spx_solve_opts o;
    memset(&o, 0, sizeof o);
    o.rtol = 1e-8;
    o.max_iters = 1000;
    o.keep_workspace = 1;
    return o;
}

double spx__solve_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Rows a thread of the Jacobi diagonal takes at least. */
#define JACOBI_GRAIN 65536

/* A(i,i), or 0 when row i stores none (rows are sorted). */
static double diagonal_entry(const spx_matrix *A, int64_t i)
{
    int64_t lo = spx__row_off(A, i), hi = spx__row_off(A, i + 1);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, c = spx__col(A, mid);
        if (c == i) return spx__val(A, mid);
        if (c < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0.0;
}

spx_status spx__jacobi_diagonal(const spx_matrix *A, int64_t n, const int64_t *perm, double **d)
{
    spx_status st = spx__check_matrix(A, "the Jacobi preconditioner");
    *d = NULL;
    if (st != SPX_OK) return st;
    if (A->rows != n || A->cols != n)
        return spx__error(SPX_ERR_DIM_MISMATCH, "A is %lld x %lld, the plan %lld x %lld",
                          (long long)A->rows, (long long)A->cols, (long long)n, (long long)n);
    SPX_TRY(spx__alloc((void **)d, (size_t)n, sizeof **d, "Jacobi diagonal"));
    /* rows in parallel (a solve on 8M rows spent 150 ms here on one thread);
     * the first bad entry in k order is the one named */
    int64_t bad = n;
    const int nt = spx__threads_for(n, JACOBI_GRAIN);
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : bad)
    for (int64_t k = 0; k < n; k++) {
        double a = diagonal_entry(A, perm ? perm[k] : k);
        if (a == 0.0 || !isfinite(a)) bad = k < bad ? k : bad;
        (*d)[k] = 1.0 / a;
    }
    if (bad < n) {
        const int64_t i = perm ? perm[bad] : bad;
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "Jacobi needs a nonzero finite diagonal: A(%lld,%lld) is %g",
                        (long long)i + 1, (long long)i + 1, diagonal_entry(A, i));
    }
cleanup:
    if (st != SPX_OK) {
        spx__free(*d);
        *d = NULL;
    }
    return st;
}

static spx_status jacobi(spx__solve *S, const spx_matrix *A)
{
    double *d = NULL;
    int64_t *perm = NULL;
    spx_status st = SPX_OK;
    if (S->P) { /* a multi plan's vectors are in A's order */
        SPX_TRY(spx__alloc((void **)&perm, (size_t)S->s.n, sizeof *perm, "plan order"));
        SPX_TRY(spx_plan_permutation(S->P, perm));
    }
    SPX_TRY(spx__jacobi_diagonal(A, S->s.n, perm, &d));
    SPX_TRY(spx__v_from_host(&S->s, d, &S->dinv, "Jacobi diagonal"));
cleanup:
    spx__free(d);
    spx__free(perm);
    return st;
}

/* b and x, vectors of S's space. */
static spx_status check_vectors(const spx__solve *S, const void *b, const void *x)
{
    spx_status st;
    if (S->M && ((st = spx__multi_v_check(S->s.multi, b)) != SPX_OK ||
                 (st = spx__multi_v_check(S->s.multi, x)) != SPX_OK))
        return st;
    if (S->s.n > 0 && (!b || !x)) return spx__error(SPX_ERR_INVALID_ARG, "b or x is NULL");
    if (S->s.n > 0 && b == x) /* x's updates would change b under the solve */
        return spx__error(SPX_ERR_INVALID_ARG, "b and x are the same vector: x needs its own");
    if (S->s.cuda && S->s.n > 0) {
        static const char *const host =
            "of a CUDA plan's solve (host vectors: spx_cg_host, spx_gmres_host, "
            "spx_bicgstab_host)";
        char what[128];
        snprintf(what, sizeof what, "b %s", host);
        if ((st = spx__cuda_device_array(b, what)) != SPX_OK) return st;
        snprintf(what, sizeof what, "x %s", host);
        return spx__cuda_device_array(x, what);
    }
    return SPX_OK;
}

/* Jacobi by an operator: 1 / the process's diagonal entries. */
static spx_status jacobi_op(spx__solve *S)
{
    double *d = NULL;
    spx_status st = SPX_OK;
    if (!S->op->diag)
        return spx__error(SPX_ERR_INVALID_ARG, "the Jacobi preconditioner needs the diagonal");
    SPX_TRY(spx__alloc((void **)&d, (size_t)S->s.n + 1, sizeof *d, "Jacobi diagonal"));
    int64_t bad = S->s.n;
    const int nt = spx__threads_for(S->s.n, JACOBI_GRAIN);
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : bad)
    for (int64_t k = 0; k < S->s.n; k++) {
        const double a = S->op->diag[k];
        if (a == 0.0 || !isfinite(a)) bad = k < bad ? k : bad;
        d[k] = 1.0 / a;
    }
    if (bad < S->s.n) {
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "Jacobi needs a nonzero finite diagonal: entry %lld of this "
                        "process's rows is %g",
                        (long long)bad, S->op->diag[bad]);
        goto cleanup;
    }
    SPX_TRY(spx__v_from_host(&S->s, d, &S->dinv, "Jacobi diagonal"));
cleanup:
    spx__free(d);
    return st;
}

/* Processes sharing S's vectors agree on st (each passes its own): a
 * failure anywhere is returned everywhere. */
static spx_status agree(const spx__solve *S, spx_status st)
{
    double none = 0.0;
    const spx__vreduce *r = S->space_ready ? S->s.reduce : S->op ? S->op->reduce : NULL;
    return r ? r->allsum(r->ctx, &none, 0, st) : st;
}

/* What begin does before the first dot: everything local. */
static spx_status begin_local(spx__solve *S, const spx_plan *P, spx_multi_plan *M,
                              const spx__solve_op *op, const spx_matrix *A, const void *b,
                              const void *x)
{
    spx_status st = SPX_OK;
    if (!(S->o.rtol >= 0.0) || S->o.max_iters < 0 || S->o.restart < 0)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "solver rtol must be >= 0, max_iters >= 0 and restart >= 0");
    if (M && spx_multi_plan_parts(M) == 0)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL, freed or wrong");
    if (P && spx__plan_keep(P) && spx_plan_operation(P) != SPX_OP_SPMV) /* before its slot */
        return spx__error(SPX_ERR_INVALID_ARG, "a solver needs an SpMV plan%s",
                          spx_plan_operation(P) == SPX_OP_SPMM ? " (SpMM plans: spx_cg_many)" : "");
    if (op) {
        st = spx__vspace_init_op(op->n, op->t, op->cuda, op->stream, op->reduce, &S->s);
    } else {
        S->slot = M ? &M->solve_keep : spx__plan_keep(P); /* NULL for a bad P, refused next */
        S->kept = S->slot ? spx__keep_take(S->slot) : NULL;
        if (S->kept)
            S->s = S->kept->s;
        else
            st = M ? spx__vspace_init_multi(M, &S->s) : spx__vspace_init(P, &S->s);
    }
    if (st != SPX_OK) return st;
    S->space_ready = 1;
    if ((st = check_vectors(S, b, x)) != SPX_OK) return st;
    if (S->o.jacobi && op) return jacobi_op(S);
    if (S->o.jacobi && !A)
        return spx__error(SPX_ERR_INVALID_ARG, "the Jacobi preconditioner needs A");
    if (S->o.jacobi && (st = jacobi(S, A)) != SPX_OK) return st;
    return SPX_OK;
}

spx_status spx__solve_begin(spx__solve *S, const spx_plan *P, spx_multi_plan *M,
                            const spx__solve_op *op, const spx_matrix *A, const void *b,
                            const void *x, const spx_solve_opts *o)
{
    spx_status st;
    memset(S, 0, sizeof *S);
    S->t0 = spx__solve_now_ms();
    S->P = P;
    S->M = M;
    S->op = op;
    S->o = o ? *o : spx_solve_opts_default();
    if ((st = agree(S, begin_local(S, P, M, op, A, b, x))) != SPX_OK) return st;
    if ((st = spx__v_dot(&S->s, b, b, &S->bnorm)) != SPX_OK) return st;
    S->bnorm = sqrt(S->bnorm);
    return SPX_OK;
}

spx_status spx__solve_spmv(const spx__solve *S, double alpha, const void *x, double beta, void *y)
{
    if (S->M) return spx__multi_v_spmv(S->s.multi, alpha, x, beta, y);
    if (S->op) return S->op->spmv(S->op->ctx, alpha, x, beta, y);
    return spx_spmv(S->P, alpha, x, beta, y);
}

spx_status spx__solve_residual(const spx__solve *S, const void *b, const void *x, void *r)
{
    spx_status st = spx__v_axpby(&S->s, 1.0, b, 0.0, r);
    if (st != SPX_OK || spx__v_global_n(&S->s) == 0) return st;
    return spx__solve_spmv(S, -1.0, x, 1.0, r);
}

spx_status spx__solve_precond(const spx__solve *S, const void *r, void *z)
{
    if (S->dinv) return spx__v_mul(&S->s, S->dinv, r, z);
    return spx__v_axpby(&S->s, 1.0, r, 0.0, z);
}

int spx__solve_record(spx__solve *S, int64_t iter, double rnorm)
{
    double rel = S->bnorm > 0.0 ? rnorm / S->bnorm : rnorm;
    S->iters = iter;
    if (S->o.history) S->o.history[iter] = rel;
    if (rel <= S->o.rtol) S->converged = 1;
    if (S->o.callback && S->o.callback(S->o.ctx, iter, rel)) S->stop = 1;
    if (S->o.callback && S->s.reduce) { /* processes stop together: where any asks */
        double asked = S->stop;
        if (S->s.reduce->allsum(S->s.reduce->ctx, &asked, 1, SPX_OK) != SPX_OK || asked > 0.0)
            S->stop = 1;
    }
    return S->stop || S->converged;
}

/* Whether S's iterations are recorded and replayed: where the space can,
 * without a callback (which waits for each iteration anyway), for solves
 * allowed SPX__SOLVE_RECORD_MIN iterations or more (a recording costs
 * about as much as a few iterations), unless SPX_SOLVE_GRAPH=0. */
static int wants_replay(const spx__solve *S)
{
    const char *env = getenv("SPX_SOLVE_GRAPH");
    if (env && strcmp(env, "0") == 0) return 0;
    return !S->o.callback && S->o.max_iters >= SPX__SOLVE_RECORD_MIN && spx__v_can_record(&S->s);
}

/* queue(it) recorded as S's graph; a failure ran nothing. */
static spx_status record(spx__solve *S, void *x, void **v, spx__solve_queue queue)
{
    spx_status st = spx__v_record_begin(&S->s);
    if (st == SPX_OK) st = queue(S, x, v, -1);
    spx_status end = spx__v_record_end(&S->s, st == SPX_OK);
    return st == SPX_OK ? end : st;
}

/* Iteration it queued: replayed from S's graph (recorded at the first),
 * or queued operation by operation where it cannot be recorded. */
static spx_status queue_one(spx__solve *S, void *x, void **v, spx__solve_queue queue, int64_t it)
{
    if (S->replay && !S->recorded) {
        S->recorded = record(S, x, v, queue) == SPX_OK;
        if (!S->recorded) {
            spx__clear_error(); /* a failed recording is not the solve's failure */
            S->replay = 0;
        }
    }
    if (!S->replay) return queue(S, x, v, it);
    S->replayed++;
    return spx__v_replay(&S->s, it);
}

spx_status spx__solve_iterate(spx__solve *S, void *x, void **v, spx__solve_queue queue,
                              spx__solve_take take)
{
    const int on_gpus =
        spx__v_regs_on_device(&S->s) || (S->s.multi && spx__multi_v_ahead(S->s.multi));
    const int64_t ahead = on_gpus && !S->o.callback ? SPX__SOLVE_AHEAD : 0;
    int64_t taken = 0;
    spx_status st = SPX_OK;
    S->replay = wants_replay(S);
    for (int64_t it = 1; it <= S->o.max_iters; it++) {
        if ((st = queue_one(S, x, v, queue, it)) != SPX_OK) return st;
        while (taken < it - ahead)
            if (take(S, ++taken, &st)) return st;
    }
    while (taken < S->o.max_iters)
        if (take(S, ++taken, &st)) return st;
    return SPX_OK;
}

/* v[0..nvec): the kept vectors zeroed, the rest made. */
static spx_status work_vectors(spx__solve *S, void **v, int nvec, const char *who)
{
    const int kept = S->kept ? S->kept->nvec : 0;
    spx_status st = SPX_OK;
    for (int k = 0; k < nvec && st == SPX_OK; k++) {
        if (k < kept) {
            v[k] = S->kept->v[k];
            st = spx__v_zero(&S->s, v[k]);
        } else {
            st = spx__v_alloc(&S->s, &v[k], who);
        }
    }
    return st;
}

/* The space and the vectors v[0..nvec) (those made: a prefix, the kept
 * ones among them) into the plan's slot, or freed: with keep_workspace 0,
 * or a space not set up. */
static void put_away(spx__solve *S, void **v, int nvec)
{
    spx__solve_kept *k = S->kept;
    const int had = k ? k->nvec : 0;
    int made = 0;
    while (made < nvec && v[made])
        made++;
    spx__v_free(&S->s, S->dinv);
    S->dinv = NULL;
    if (S->space_ready && S->slot && S->o.keep_workspace &&
        (k || spx__calloc((void **)&k, 1, sizeof *k, "solver workspace") == SPX_OK)) {
        k->s = S->s;
        for (int i = 0; i < made; i++)
            k->v[i] = v[i];
        k->nvec = made > had ? made : had;
        spx__keep_give(S->slot, k, kept_free);
        return;
    }
    for (int i = 0; i < (nvec > had ? nvec : had); i++) /* v[i] is k->v[i] where taken */
        spx__v_free(&S->s, i < nvec && v[i] ? v[i] : i < had ? k->v[i] : NULL);
    spx__vspace_free(&S->s);
    spx__free(k);
}

spx_status spx__solve_end(spx__solve *S, const void *b, const void *x, void *r, spx_status st,
                          spx_solve_info *info, const char *who)
{
    double rr = NAN;
    spx_status fin = SPX_OK;
    const int64_t n = spx__v_global_n(&S->s);
    if (n > 0 && !r) fin = st != SPX_OK ? st : SPX_ERR_INVALID_ARG;
    if (n > 0 && r && (fin = spx__solve_residual(S, b, x, r)) == SPX_OK)
        fin = spx__v_dot(&S->s, r, r, &rr);
    if (n == 0) rr = 0.0;
    double rel = S->bnorm > 0.0 ? sqrt(rr) / S->bnorm : sqrt(rr);
    if (info) {
        info->iters = S->iters;
        info->rel_residual = rel;
        info->ms = spx__solve_now_ms() - S->t0;
        info->replayed = S->replayed;
    }
    if (st != SPX_OK) return st;
    if (fin != SPX_OK) return fin;
    if (!S->stop && !S->converged)
        return spx__error(SPX_ERR_NOT_CONVERGED,
                          "%s: relative residual %.3g after %lld iterations, above %.3g", who, rel,
                          (long long)S->iters, S->o.rtol);
    return SPX_OK;
}

static spx_status run(const spx_plan *P, spx_multi_plan *M, const spx__solve_op *op,
                      const spx_matrix *A, const void *b, void *x, const spx_solve_opts *o,
                      spx_solve_info *info, const char *who, int nvec, spx__solve_loop loop)
{
    spx__solve S;
    void *v[SPX__SOLVE_MAX_VECTORS] = {NULL};
    spx_status st = spx__solve_begin(&S, P, M, op, A, b, x, o);
    const int began = st == SPX_OK; /* b and x checked: the final residual may read them */
    if (began) st = agree(&S, work_vectors(&S, v, nvec, who));
    if (began && st == SPX_OK) st = loop(&S, b, x, v);
    if (began) st = spx__solve_end(&S, b, x, v[0], st, info, who);
    put_away(&S, v, nvec);
    return st;
}

spx_status spx__solve_run(const spx_plan *P, spx_multi_plan *M, const spx_matrix *A, const void *b,
                          void *x, const spx_solve_opts *o, spx_solve_info *info, const char *who,
                          int nvec, spx__solve_loop loop)
{
    return run(P, M, NULL, A, b, x, o, info, who, nvec, loop);
}

spx_status spx__solve_run_op(const spx__solve_op *op, const void *b, void *x,
                             const spx_solve_opts *o, spx_solve_info *info, const char *who,
                             int nvec, spx__solve_loop loop)
{
    return run(NULL, NULL, op, NULL, b, x, o, info, who, nvec, loop);
}
