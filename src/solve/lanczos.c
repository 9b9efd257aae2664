/* spx_eigsh: thick-restart Lanczos (Wu and Simon 2000) with full
 * reorthogonalisation, on any square SpMV plan of a symmetric A. The basis
 * V holds up to m vectors (spx_eig_opts.basis), the first p of them locked
 * eigenvectors (below; p = 0 at first):
 *   v_p = u / ||u||, u a fixed pseudo-random vector made orthogonal to the
 *         locked ones;
 *   step j: w = A v_j; h = V'w, w -= V h; h' = V'w, w -= V h' (V = v_0..v_j,
 *           classical Gram-Schmidt twice: vec_gs.h's three passes), or
 *           after a cycle's first step h = (0, .., 0, beta, v_j'w), the
 *           three-term recurrence, whose w is orthogonal to V in exact
 *           arithmetic, so only the second Gram-Schmidt reads V (two
 *           passes); H(i, j) = h_i + h'_i = v_i' A v_j (i <= j),
 *           beta = ||w||, v_{j+1} = w / beta.
 * With q vectors in the basis, T = V'AV over v_p..v_{q-1} is H's upper
 * triangle mirrored (tridiagonal, but for the row and column of the first
 * step after a restart); its eigenpairs (theta_i, s_i) (symeig.h) give the
 * Ritz pairs (theta_i, V s_i), whose residual ||A V s_i - theta_i V s_i|| is
 * beta |s_i(last)|. When the basis is full and the k wanted pairs have not
 * all met tol, it restarts thickly: the l = k + (m - p - k) / 2 wanted Ritz
 * vectors become v_p..v_{p+l-1} (T's leading block then diag(theta)), v_m
 * becomes v_{p+l}, and the steps go on from p + l (column p + l of H then
 * holds the coupling beta s_i(last) of the kept vectors to v_{p+l}, from its
 * Gram-Schmidt). A cycle ends when the wanted pairs meet tol, beta vanishes
 * against ||T|| (V spans an invariant subspace: its Ritz values are
 * eigenvalues), or max_steps pass. A step costs a product and two passes
 * over at most m vectors (three for a cycle's first); a restart one
 * combination of l outputs from m vectors (vec_combine.h).
 *
 * Copies of a multiple eigenvalue: one start vector has one direction in
 * each eigenspace, so the first cycle finds each wanted eigenvalue once.
 * Once its k pairs meet tol they are locked (v_0..v_{k-1}, p = k: every
 * later vector is made orthogonal to them, so the steps see A with their
 * eigenspaces removed) and a cycle runs from a fresh start vector. It ends
 * as soon as its best Ritz pair meets tol without beating the k-th locked
 * value (by more than tol): nothing was missed. Otherwise its pairs that
 * beat it join the locked ones in order, the worst locked ones leave, and
 * another fresh cycle runs. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "multi/multi.h"
#include "multi/multi_solve.h"
#include "solve/solve.h"
#include "solve/symeig.h"
#include "solve/vec_combine.h"
#include "solve/vec_gs.h"

#define EIG_MAX_STEPS 10000 /* spx_eig_opts.max_steps's default */

typedef struct lanczos {
    const spx_plan *P;
    spx_multi_plan *M;       /* or a multi-device plan (P NULL), its vectors resident */
    const spx__solve_op *op; /* or an operator given by its product (the MPI eigsh) */
    int64_t offset;          /* the op's: the global index of this process's first entry */
    spx__vspace s;
    spx_eig_opts o;
    int64_t m;             /* basis vectors before a restart */
    int64_t p;             /* locked vectors, v_0..v_{p-1} */
    int64_t keep;          /* vectors kept at a restart */
    int64_t kept;          /* vectors in U: keep as first set (p = 0), the most it gets */
    void **V;              /* m + 1 basis vectors */
    void **U;              /* keep (as first set, p = 0): a restart's new vectors */
    void **order;          /* k: the locked vectors' new order when fresh pairs join */
    spx__gs_buf gs;        /* h at 0, h' at m + 1, ||w||^2 at 2m + 2, where the vectors are */
    spx__combine_buf comb; /* a restart's kept x m coefficients, where the vectors are */
    double *sums;          /* their host copy */
    double *H;             /* m x m, column-major: H(i, j) = v_i' A v_j for i <= j */
    double *T;             /* T = V'AV of the unlocked vectors, for symeig (destroyed) */
    double *theta;         /* its eigenvalues, ascending */
    double *S;             /* its eigenvectors, column-major */
    double *rel;           /* the wanted Ritz pairs' relative residual estimates, best first */
    double *lock_value, *lock_rel; /* the locked pairs', best first */
    double *merged;                /* 2k: join's new lock_value and lock_rel */
    double beta;                   /* ||w|| of the last step */
    double tnorm; /* a bound on ||T||: the largest column sum of |H| and beta so far */
    int64_t steps, restarts, fresh_starts;
} lanczos;

spx_eig_opts spx_eig_opts_default(void)
{
    spx_eig_opts o;
    memset(&o, 0, sizeof o);
    o.k = 1;
    o.which = SPX_EIG_LARGEST;
    o.tol = 1e-8;
    o.max_steps = EIG_MAX_STEPS;
    return o;
}

static spx_status check_opts(const spx_eig_opts *o, int64_t n)
{
    if (o->k < 1 || o->k > n)
        return spx__error(SPX_ERR_INVALID_ARG, "eigsh: k = %lld, not 1..%lld (the matrix's rows)",
                          (long long)o->k, (long long)n);
    if (o->which != SPX_EIG_LARGEST && o->which != SPX_EIG_SMALLEST)
        return spx__error(SPX_ERR_INVALID_ARG, "eigsh: which = %d, not largest or smallest",
                          (int)o->which);
    if (!(o->tol >= 0.0) || o->max_steps < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "eigsh: tol must be >= 0 and max_steps >= 0");
    if (o->basis != 0 && o->basis < o->k + 1)
        return spx__error(SPX_ERR_INVALID_ARG, "eigsh: basis = %lld, at least k + 1 = %lld",
                          (long long)o->basis, (long long)o->k + 1);
    return SPX_OK;
}

static void lanczos_free(lanczos *L)
{
    for (int64_t i = 0; L->V && i <= L->m; i++)
        if (L->V[i]) spx__v_free(&L->s, L->V[i]);
    for (int64_t i = 0; L->U && i < L->kept; i++)
        if (L->U[i]) spx__v_free(&L->s, L->U[i]);
    if (L->gs.count) spx__gs_buf_free(&L->s, &L->gs);
    if (L->comb.count) spx__combine_buf_free(&L->s, &L->comb);
    spx__free(L->V);
    spx__free(L->U);
    spx__free(L->order);
    spx__free(L->sums);
    spx__free(L->H);
    spx__free(L->T);
    spx__free(L->theta);
    spx__free(L->S);
    spx__free(L->rel);
    spx__free(L->lock_value);
    spx__free(L->lock_rel);
    spx__free(L->merged);
    spx__vspace_free(&L->s);
}

/* *slot (freed if set) = a unit vector of splitmix64 values in [-1, 1) of
 * the (global) index and seed: the same vector however processes share it. */
static spx_status random_vector(lanczos *L, uint64_t seed, void **slot)
{
    double *u = NULL, norm = 0.0;
    void *v = NULL;
    spx_status st = spx__alloc((void **)&u, (size_t)L->s.n + 1, sizeof *u, "eigsh start vector");
    for (int64_t i = 0; st == SPX_OK && i < L->s.n; i++) {
        const uint64_t g = (uint64_t)(L->offset + i);
        uint64_t x = g * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull * (seed + 1);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        u[i] = (double)(x >> 11) * 0x1.0p-52 - 1.0;
        norm += u[i] * u[i];
    }
    if (L->s.reduce) st = L->s.reduce->allsum(L->s.reduce->ctx, &norm, 1, st);
    if (st != SPX_OK) {
        spx__free(u);
        return st;
    }
    for (int64_t i = 0; i < L->s.n; i++)
        u[i] /= sqrt(norm);
    st = spx__v_from_host(&L->s, u, &v, "eigsh basis vector");
    spx__free(u);
    if (st != SPX_OK) return st;
    if (*slot) spx__v_free(&L->s, *slot);
    *slot = v;
    return SPX_OK;
}

static spx_status lanczos_alloc(lanczos *L)
{
    spx_status st;
    const size_t m = (size_t)L->m, k = (size_t)L->o.k;
    SPX_TRY(spx__calloc((void **)&L->V, m + 1, sizeof *L->V, "eigsh basis"));
    SPX_TRY(spx__calloc((void **)&L->U, (size_t)L->keep + 1, sizeof *L->U, "eigsh basis"));
    SPX_TRY(spx__calloc((void **)&L->order, k, sizeof *L->order, "eigsh basis"));
    SPX_TRY(spx__calloc((void **)&L->sums, 2 * m + 3, sizeof *L->sums, "eigsh sums"));
    SPX_TRY(spx__calloc((void **)&L->H, m * m, sizeof *L->H, "eigsh projected matrix"));
    SPX_TRY(spx__calloc((void **)&L->T, m * m, sizeof *L->T, "eigsh projected matrix"));
    SPX_TRY(spx__calloc((void **)&L->theta, m, sizeof *L->theta, "eigsh ritz values"));
    SPX_TRY(spx__calloc((void **)&L->S, m * m, sizeof *L->S, "eigsh ritz vectors"));
    SPX_TRY(spx__calloc((void **)&L->rel, k, sizeof *L->rel, "eigsh residuals"));
    SPX_TRY(spx__calloc((void **)&L->lock_value, k, sizeof *L->lock_value, "eigsh locked pairs"));
    SPX_TRY(spx__calloc((void **)&L->lock_rel, k, sizeof *L->lock_rel, "eigsh locked pairs"));
    SPX_TRY(spx__calloc((void **)&L->merged, 2 * k, sizeof *L->merged, "eigsh locked pairs"));
    SPX_TRY(spx__gs_buf_alloc(&L->s, 2 * m + 3, &L->gs));
    SPX_TRY(spx__combine_buf_alloc(&L->s, (size_t)L->keep * m, &L->comb));
    SPX_TRY(random_vector(L, 0, &L->V[0]));
    for (size_t i = 1; i <= m; i++)
        SPX_TRY(spx__v_alloc(&L->s, &L->V[i], "eigsh basis vector (basis + 1 of them)"));
    for (; L->kept < L->keep; L->kept++)
        SPX_TRY(spx__v_alloc(&L->s, &L->U[L->kept], "eigsh restart vector"));
cleanup:
    return st;
}

/* w made orthogonal to v_0..v_{count-1} (classical Gram-Schmidt twice, one
 * wait): sums holds h at 0, h' at m + 1 and ||w||^2 at 2m + 2. */
static spx_status orthogonalise(lanczos *L, int64_t count, void *w)
{
    spx_status st;
    const void *const *V = (const void *const *)L->V;
    const int64_t h = 0, h2 = L->m + 1, nrm = 2 * (L->m + 1);
    SPX_TRY(spx__v_gs(&L->s, &L->gs, count, V, w, -1, h, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, count, V, w, h, h2, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, count, V, w, h2, -1, nrm));
    SPX_TRY(spx__v_gs_take(&L->s, &L->gs, L->sums));
cleanup:
    return st;
}

/* w made orthogonal to v_0..v_j after a three-term step (j > 0): h = (0,
 * .., 0, beta, alpha) with beta the last step's and alpha = v_j'w, w -= V h
 * (in exact arithmetic w is then orthogonal to V already); h' = V'w,
 * w -= V h' (the reorthogonalisation). Two passes over V, not three; the
 * same sums as orthogonalise. */
static spx_status three_term(lanczos *L, int64_t j, void *w)
{
    spx_status st;
    const void *const *V = (const void *const *)L->V;
    const int64_t h = 0, h2 = L->m + 1, nrm = 2 * (L->m + 1);
    SPX_TRY(spx__v_gs(&L->s, &L->gs, 1, V + j, w, -1, h + j, -1)); /* alpha */
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, w, h, h2, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, w, h2, -1, nrm));
    SPX_TRY(spx__v_gs_take(&L->s, &L->gs, L->sums));
cleanup:
    return st;
}

/* Step j: column j of H, beta, and v_{j+1} (w = A v_j made orthogonal to
 * v_0..v_j, written straight into V[j + 1]). After the first step of a
 * cycle (j > first) A v_j lies in span(v_{j-1}, v_j, v_{j+1}) (the kept
 * vectors of a restart couple to v_first only), so three_term does; the
 * first step orthogonalises against all by classical Gram-Schmidt twice. */
static spx_status step(lanczos *L, int64_t j, int64_t first)
{
    spx_status st;
    void *w = L->V[j + 1];
    double column = 0.0;
    if (j > first) { /* h's zeros and beta, before the product (a put waits for the queue) */
        memset(L->sums, 0, (size_t)j * sizeof *L->sums);
        L->sums[j - 1] = L->beta;
        SPX_TRY(spx__v_gs_put(&L->s, &L->gs, 0, L->sums, j));
    }
    SPX_TRY(L->M    ? spx__multi_v_spmv(L->s.multi, 1.0, L->V[j], 0.0, w)
            : L->op ? L->op->spmv(L->op->ctx, 1.0, L->V[j], 0.0, w)
                    : spx_spmv(L->P, 1.0, L->V[j], 0.0, w));
    SPX_TRY(j > first ? three_term(L, j, w) : orthogonalise(L, j + 1, w));
    for (int64_t i = 0; i <= j; i++) {
        L->H[i + j * L->m] = L->sums[i] + L->sums[L->m + 1 + i];
        column += fabs(L->H[i + j * L->m]);
    }
    L->beta = sqrt(L->sums[2 * (L->m + 1)]);
    L->tnorm = fmax(L->tnorm, column + L->beta);
    L->steps++;
    if (!isfinite(column) || !isfinite(L->beta))
        return spx__error(SPX_ERR_BREAKDOWN, "eigsh: a NaN or Inf at step %lld",
                          (long long)L->steps);
    if (L->beta > 0.0) SPX_TRY(spx__v_axpby(&L->s, 1.0 / L->beta, w, 0.0, w));
cleanup:
    return st;
}

/* Wanted pair t's place among T's d ascending eigenvalues. */
static int64_t wanted(const lanczos *L, int64_t d, int64_t t)
{
    return L->o.which == SPX_EIG_LARGEST ? d - 1 - t : t;
}

/* 1 when eigenvalue a lies beyond b at the wanted end by more than tol. */
static int beats(const lanczos *L, double a, double b)
{
    const double margin = L->o.tol * fabs(b) + 16.0 * DBL_EPSILON * L->tnorm;
    return L->o.which == SPX_EIG_LARGEST ? a > b + margin : a < b - margin;
}

/* T of the d = q - p unlocked vectors, its eigenpairs, and the wanted
 * pairs' relative residual estimates (rel): *done those that meet tol,
 * *worst the largest. */
static spx_status ritz(lanczos *L, int64_t q, int64_t *done, double *worst)
{
    const int64_t m = L->m, p = L->p, d = q - p;
    for (int64_t j = 0; j < d; j++)
        for (int64_t i = 0; i <= j; i++)
            L->T[i + j * d] = L->T[j + i * d] = L->H[(p + i) + (p + j) * m];
    if (spx__symeig(d, L->T, L->theta, L->S) != 0)
        return spx__error(SPX_ERR_BREAKDOWN,
                          "eigsh: the projected matrix's eigenvalues did not "
                          "converge (%lld steps)",
                          (long long)L->steps);
    *done = 0;
    *worst = 0.0;
    for (int64_t t = 0; t < L->o.k && t < d; t++) {
        const int64_t i = wanted(L, d, t);
        const double res = L->beta * fabs(L->S[(d - 1) + i * d]), theta = fabs(L->theta[i]);
        L->rel[t] = theta > 0.0 ? res / theta : res;
        *done += L->rel[t] <= L->o.tol;
        *worst = fmax(*worst, L->rel[t]);
    }
    return SPX_OK;
}

/* Whether the cycle over d unlocked vectors can end: before any lock, the
 * k wanted pairs meet tol; after, the wanted pairs meet tol in order up to
 * the first whose interval theta -+ residual (an eigenvalue lies in it)
 * does not reach beyond the k-th locked value (or all of them do; with
 * fewer than k locked, all of them). */
static int settled(const lanczos *L, int64_t d, int64_t done)
{
    const int64_t k = L->o.k;
    if (L->p == 0) return done == k;
    for (int64_t t = 0; t < k && t < d; t++) {
        const int64_t i = wanted(L, d, t);
        const double res = L->beta * fabs(L->S[(d - 1) + i * d]);
        const double edge = L->theta[i] + (L->o.which == SPX_EIG_LARGEST ? res : -res);
        if (L->p == k && !beats(L, edge, L->lock_value[k - 1])) return 1;
        if (L->rel[t] > L->o.tol) return 0;
    }
    return 1;
}

/* out = v_p..v_{p+d-1} times T's eigenvector i: out = 0 - V (-s_i), one pass. */
static spx_status ritz_vector(lanczos *L, int64_t d, int64_t i, void *out)
{
    spx_status st;
    for (int64_t r = 0; r < d; r++)
        L->sums[r] = -L->S[r + i * d];
    if ((st = spx__v_gs_put(&L->s, &L->gs, 0, L->sums, d)) != SPX_OK ||
        (st = spx__v_zero(&L->s, out)) != SPX_OK)
        return st;
    return spx__v_gs(&L->s, &L->gs, d, (const void *const *)(L->V + L->p), out, 0, -1, -1);
}

/* The thick restart from a full basis: the kept wanted Ritz vectors become
 * v_p..v_{p+l-1} (one combine: U = V S, S's kept columns into T, free
 * until the next ritz), v_m becomes v_{p+l}; H restarts as diag(theta). */
static spx_status restart(lanczos *L)
{
    spx_status st;
    const int64_t m = L->m, p = L->p, d = m - p, l = L->keep;
    for (int64_t t = 0; t < l; t++)
        for (int64_t r = 0; r < d; r++)
            L->T[t * d + r] = L->S[r + wanted(L, d, t) * d];
    st = spx__v_combine(&L->s, &L->comb, &L->gs, d, (const void *const *)(L->V + p), l, L->U, L->T);
    if (st != SPX_OK) return st;
    for (int64_t t = 0; t < l; t++) {
        void *old = L->V[p + t];
        L->V[p + t] = L->U[t];
        L->U[t] = old;
    }
    void *r = L->V[m];
    L->V[m] = L->V[p + l];
    L->V[p + l] = r;
    memset(L->H, 0, (size_t)(m * m) * sizeof *L->H);
    for (int64_t t = 0; t < l; t++)
        L->H[(p + t) + (p + t) * m] = L->theta[wanted(L, d, t)];
    L->restarts++;
    return SPX_OK;
}

/* Cycles of steps and restarts from v_p until settled, V spans an invariant
 * subspace or max_steps pass: *q the vectors in the final basis, *done the
 * wanted pairs that met tol, *worst their largest estimate, *ok settled.
 * Settled is tried when the basis is full; a fresh cycle (p > 0) also tries
 * at 8 and 16 steps, as it mostly ends once its best pair is clear of the
 * locked ones. */
static spx_status iterate(lanczos *L, int64_t *q, int64_t *done, double *worst, int *ok)
{
    spx_status st;
    int64_t l = L->p;
    for (;;) {
        int invariant = 0;
        int64_t j = l;
        for (; j < L->m && !invariant && L->steps < L->o.max_steps; j++) {
            if ((st = step(L, j, l)) != SPX_OK) return st;
            invariant = L->beta <= 16.0 * DBL_EPSILON * L->tnorm || j + 1 == spx__v_global_n(&L->s);
            const int64_t d = j + 1 - L->p;
            if (L->p > 0 && (d == 8 || d == 16) && !invariant && j + 1 < L->m) {
                if ((st = ritz(L, j + 1, done, worst)) != SPX_OK) return st;
                if ((*ok = settled(L, d, *done)) != 0) {
                    *q = j + 1;
                    return SPX_OK;
                }
            }
        }
        *q = j;
        if (invariant) L->beta = 0.0; /* the Ritz values are eigenvalues */
        if ((st = ritz(L, *q, done, worst)) != SPX_OK) return st;
        *ok = settled(L, *q - L->p, *done);
        if (*ok || invariant || L->steps >= L->o.max_steps || *q < L->m) return SPX_OK;
        if ((st = restart(L)) != SPX_OK) return st;
        l = L->p + L->keep;
    }
}

/* v_0..v_{k-1} = the first cycle's k wanted Ritz vectors (q vectors; all
 * q when q < k, its Krylov space then exhausted). */
static spx_status lock_first(lanczos *L, int64_t q)
{
    spx_status st;
    const int64_t k = L->o.k < q ? L->o.k : q;
    for (int64_t t = 0; t < k; t++) {
        if ((st = ritz_vector(L, q, wanted(L, q, t), L->U[t])) != SPX_OK) return st;
        L->lock_value[t] = L->theta[wanted(L, q, t)];
        L->lock_rel[t] = L->rel[t];
    }
    for (int64_t t = 0; t < k; t++) {
        void *old = L->V[t];
        L->V[t] = L->U[t];
        L->U[t] = old;
    }
    L->p = k;
    return SPX_OK;
}

/* A fresh cycle's start: v_p a new pseudo-random unit vector orthogonal to
 * the locked ones; 0 with *room = 0 when none is left (p = n). */
static spx_status fresh_start(lanczos *L, int *room)
{
    spx_status st;
    const int64_t p = L->p;
    L->fresh_starts++;
    if ((st = random_vector(L, (uint64_t)L->fresh_starts, &L->V[p])) != SPX_OK ||
        (st = orthogonalise(L, p, L->V[p])) != SPX_OK)
        return st;
    const double norm = sqrt(L->sums[2 * (L->m + 1)]);
    *room = norm > 1e-8;
    memset(L->H, 0, (size_t)(L->m * L->m) * sizeof *L->H);
    L->beta = 0.0;
    L->keep = L->o.k + (L->m - p - L->o.k) / 2;
    if (L->keep > L->m - p - 1) L->keep = L->m - p - 1;
    return *room ? spx__v_axpby(&L->s, 1.0 / norm, L->V[p], 0.0, L->V[p]) : SPX_OK;
}

/* The settled fresh cycle's pairs that beat the k-th locked value (all of
 * them while fewer than k are locked) join the locked ones, merged in order
 * (the worst locked leave once k are); *joined how many. */
static spx_status join(lanczos *L, int64_t q, int64_t *joined)
{
    spx_status st;
    const int64_t k = L->o.k, p = L->p, d = q - p;
    int64_t cand = 0, a = 0, b = 0;
    double *value = L->merged, *rel = L->merged + k;
    while (cand < k && cand < d &&
           (p < k || beats(L, L->theta[wanted(L, d, cand)], L->lock_value[k - 1])))
        cand++;
    const int64_t total = p + cand < k ? p + cand : k;
    for (int64_t r = 0; r < total; r++) {
        const double fresh = b < cand ? L->theta[wanted(L, d, b)] : 0.0;
        const int take =
            b < cand && (a >= p || (L->o.which == SPX_EIG_LARGEST ? fresh > L->lock_value[a]
                                                                  : fresh < L->lock_value[a]));
        if (take && (st = ritz_vector(L, d, wanted(L, d, b), L->U[b])) != SPX_OK) return st;
        value[r] = take ? fresh : L->lock_value[a];
        rel[r] = take ? L->rel[b] : L->lock_rel[a];
        L->order[r] = take ? L->U[b++] : L->V[a++];
    }
    /* V[a..max(p, total)): the locked vectors that left and the unlocked
     * ones whose places the new locked take, b of them, go to U */
    for (int64_t t = 0; t < b; t++)
        L->U[t] = L->V[a + t];
    for (int64_t r = 0; r < total; r++) {
        L->V[r] = L->order[r];
        L->lock_value[r] = value[r];
        L->lock_rel[r] = rel[r];
    }
    L->p = total;
    *joined = b;
    return SPX_OK;
}

/* Fresh cycles until k are locked and (unless copies are skipped) one
 * finds nothing to join: *ok 0 when max_steps passed first. */
static spx_status find_copies(lanczos *L, int *ok)
{
    spx_status st;
    int64_t q, done, joined = 1;
    double worst;
    int room = 1;
    *ok = 1;
    while (L->p < L->o.k || (joined > 0 && !L->o.skip_copies)) {
        if ((st = fresh_start(L, &room)) != SPX_OK || !room) return st;
        if ((st = iterate(L, &q, &done, &worst, ok)) != SPX_OK || !*ok) return st;
        if ((st = join(L, q, &joined)) != SPX_OK) return st;
    }
    return SPX_OK;
}

/* values (and vectors: n x k where P's vectors live, or k vectors of M)
 * of the k wanted pairs: the locked ones, or the first cycle's Ritz pairs
 * of its q vectors; NaN and 0 past those there are (max_steps passed
 * first). */
static spx_status deliver(lanczos *L, int64_t q, double *values, void *vectors)
{
    spx_status st;
    const int64_t have = L->p ? L->p : q < L->o.k ? q : L->o.k;
    for (int64_t t = 0; t < L->o.k; t++) {
        const int64_t i = wanted(L, q, t);
        values[t] = t >= have ? NAN : L->p ? L->lock_value[t] : L->theta[i];
        if (!vectors) continue;
        void *out = L->M ? ((void **)vectors)[t]
                         : (char *)vectors + (size_t)t * (size_t)L->s.n * spx__v_entry_bytes(&L->s);
        if ((st = spx__v_zero(&L->s, out)) != SPX_OK) return st;
        if (t >= have) continue;
        if ((st = L->p ? spx__v_axpby(&L->s, 1.0, L->V[t], 1.0, out) : ritz_vector(L, q, i, out)) !=
            SPX_OK)
            return st;
    }
    return SPX_OK;
}

/* M's space, after checking M, k and the k output vectors (when given). */
static spx_status multi_space(lanczos *L, spx_multi_vector *const *vectors)
{
    spx_status st;
    if (spx_multi_plan_parts(L->M) == 0)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL, freed or wrong");
    if ((st = check_opts(&L->o, L->M->rows)) != SPX_OK) return st;
    for (int64_t t = 0; vectors && t < L->o.k; t++)
        if ((st = spx__multi_vector_check(L->M, vectors[t])) != SPX_OK) return st;
    return spx__vspace_init_multi(L->M, &L->s);
}

/* Processes sharing L's vectors agree on st: a failure anywhere is one everywhere. */
static spx_status agreed(const lanczos *L, spx_status st)
{
    double none = 0.0;
    return L->s.reduce ? L->s.reduce->allsum(L->s.reduce->ctx, &none, 0, st) : st;
}

static spx_status eigsh_run(const spx_plan *P, spx_multi_plan *M, const spx__solve_op *op,
                            int64_t offset, const spx_eig_opts *o, double *values, void *vectors,
                            spx_eig_info *info)
{
    lanczos L;
    spx_status st;
    int64_t q = 0, done = 0;
    int ok = 0, copies_ok = 1;
    double worst = INFINITY, t0 = spx__solve_now_ms();
    memset(&L, 0, sizeof L);
    L.P = P;
    L.M = M;
    L.op = op;
    L.offset = offset;
    L.o = o ? *o : spx_eig_opts_default();
    if (!values) return spx__error(SPX_ERR_INVALID_ARG, "eigsh: values is NULL");
    st = M    ? multi_space(&L, (spx_multi_vector *const *)vectors)
         : op ? spx__vspace_init_op(op->n, op->t, op->cuda, op->stream, op->reduce, &L.s)
              : spx__vspace_init(P, &L.s);
    if (st != SPX_OK) return op ? agreed(&L, st) : st; /* L.s.reduce is set where it failed late */
    const int64_t n = spx__v_global_n(&L.s);
    SPX_TRY(check_opts(&L.o, n));
    L.m = L.o.basis ? L.o.basis : (2 * L.o.k + 1 > L.o.k + 32 ? 2 * L.o.k + 1 : L.o.k + 32);
    if (L.m > n) L.m = n;
    L.keep = L.o.k + (L.m - L.o.k) / 2;
    if (L.keep > L.m - 1) L.keep = L.m - 1;
    SPX_TRY(agreed(&L, lanczos_alloc(&L)));
    SPX_TRY(iterate(&L, &q, &done, &worst, &ok));
    /* fresh cycles: to look for copies (unless skipped or V spans
     * everything), or because the start vector's Krylov space was exhausted
     * with fewer than k dimensions; a cycle needs k + 1 vectors besides the
     * k locked, or a basis that holds the whole space (no restarts) */
    const int exhausted = !ok && q < L.o.k && done == q;
    if ((ok && !L.o.skip_copies && q < n) || exhausted) {
        if (L.m - L.o.k >= L.o.k + 1 || L.m == n) {
            SPX_TRY(lock_first(&L, q));
            SPX_TRY(find_copies(&L, &copies_ok));
            done = L.p;
            worst = 0.0;
            for (int64_t t = 0; t < L.p; t++)
                worst = fmax(worst, L.lock_rel[t]);
        } else if (exhausted) {
            st = spx__error(SPX_ERR_BREAKDOWN,
                            "eigsh: the start vector's Krylov space has %lld dimensions, fewer "
                            "than k = %lld, and a basis of %lld leaves no room for fresh start "
                            "vectors (2k + 1 or n does)",
                            (long long)q, (long long)L.o.k, (long long)L.m);
            goto cleanup;
        }
    }
    SPX_TRY(deliver(&L, q, values, vectors));
    if (done < L.o.k)
        st = spx__error(SPX_ERR_NOT_CONVERGED,
                        "eigsh: %lld of %lld pairs met tol %g after %lld steps (max_steps)",
                        (long long)done, (long long)L.o.k, L.o.tol, (long long)L.steps);
    else if (!copies_ok)
        st = spx__error(SPX_ERR_NOT_CONVERGED,
                        "eigsh: the %lld pairs met tol %g, but max_steps (%lld) passed before a "
                        "fresh start vector ruled out missed copies of multiple eigenvalues",
                        (long long)L.o.k, L.o.tol, (long long)L.steps);
cleanup:
    if (info) {
        info->steps = L.steps;
        info->restarts = L.restarts;
        info->fresh_starts = L.fresh_starts;
        info->converged = done;
        info->max_residual = worst;
        info->ms = spx__solve_now_ms() - t0;
    }
    lanczos_free(&L);
    return st;
}

spx_status spx_eigsh(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                     spx_eig_info *info)
{
    return eigsh_run(P, NULL, NULL, 0, o, values, vectors, info);
}

spx_status spx__eigsh_op(const spx__solve_op *op, int64_t offset, const spx_eig_opts *o,
                         double *values, void *vectors, spx_eig_info *info)
{
    return eigsh_run(NULL, NULL, op, offset, o, values, vectors, info);
}

spx_status spx_multi_eigsh(spx_multi_plan *P, const spx_eig_opts *o, double *values,
                           spx_multi_vector *const *vectors, spx_eig_info *info)
{
    return eigsh_run(NULL, P, NULL, 0, o, values, (void *)vectors, info);
}

spx_status spx_eigsh_host(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                          spx_eig_info *info)
{
    int64_t rows, cols;
    void *dev = NULL;
    spx_status st = spx_plan_dims(P, &rows, &cols);
    if (st != SPX_OK || !vectors || spx_plan_device(P) != SPX_DEV_CUDA)
        return spx_eigsh(P, o, values, vectors, info);
    const int64_t k = o ? o->k : 1;
    const size_t es = spx_plan_x_type(P) == SPX_F64 ? sizeof(double) : sizeof(float);
    const size_t bytes = k > 0 && k <= rows ? (size_t)(rows * k) * es : 0;
    if (bytes && (st = spx__cuda_alloc(&dev, bytes, "eigsh vectors")) != SPX_OK) return st;
    st = spx_eigsh(P, o, values, bytes ? dev : vectors, info);
    if (bytes && (st == SPX_OK || st == SPX_ERR_NOT_CONVERGED)) {
        spx_status cp = spx__cuda_copy(vectors, dev, bytes, 0);
        if (cp != SPX_OK) st = cp;
    }
    spx__cuda_free(dev);
    return st;
}
