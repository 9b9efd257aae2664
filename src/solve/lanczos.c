/* spx_eigsh: thick-restart Lanczos (Wu and Simon 2000) with full
 * reorthogonalisation, on any square SpMV plan of a symmetric A. The basis
 * V holds up to m vectors (spx_eig_opts.basis):
 *   v_0 = u / ||u||, u a fixed pseudo-random vector;
 *   step j: w = A v_j; h = V'w, w -= V h; h' = V'w, w -= V h' (V = v_0..v_j,
 *           classical Gram-Schmidt twice: vec_gs.h's three passes);
 *           H(i, j) = h_i + h'_i = v_i' A v_j (i <= j), beta = ||w||,
 *           v_{j+1} = w / beta.
 * With q steps in the basis, T = V'AV is H's upper triangle mirrored
 * (tridiagonal, but for the row and column of the first step after a
 * restart); its eigenpairs (theta_i, s_i) (symeig.h) give the Ritz pairs
 * (theta_i, V s_i), whose residual ||A V s_i - theta_i V s_i|| is
 * beta |s_i(q-1)|. When the basis is full and the k wanted pairs have not
 * all met tol, it restarts thickly: the l = k + (m - k) / 2 wanted Ritz
 * vectors become v_0..v_{l-1} (T's leading block then diag(theta)), v_m
 * becomes v_l, and the steps go on from l (column l of H then holds the
 * coupling beta s_i(m-1) of the kept vectors to v_l, from its Gram-Schmidt).
 * It stops when the wanted pairs meet tol, beta vanishes against ||T|| (V
 * spans an invariant subspace: its Ritz values are eigenvalues), or
 * max_steps pass. A step costs a product and three passes over at most m
 * vectors; a restart l passes over m. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "solve/solve.h"
#include "solve/symeig.h"
#include "solve/vec_gs.h"

#define EIG_MAX_STEPS 10000 /* spx_eig_opts.max_steps's default */

typedef struct lanczos {
    const spx_plan *P;
    spx__vspace s;
    spx_eig_opts o;
    int64_t m;      /* basis vectors before a restart */
    int64_t keep;   /* vectors kept at a restart */
    void **V;       /* m + 1 basis vectors */
    void **U;       /* keep: a restart's new vectors */
    spx__gs_buf gs; /* h at 0, h' at m + 1, ||w||^2 at 2m + 2, where the vectors are */
    double *sums;   /* their host copy */
    double *H;      /* m x m, column-major: H(i, j) = v_i' A v_j for i <= j */
    double *T;      /* T = V'AV of the steps in the basis, for symeig (destroyed) */
    double *theta;  /* its eigenvalues, ascending */
    double *S;      /* its eigenvectors, column-major */
    double beta;    /* ||w|| of the last step */
    double tnorm;   /* a bound on ||T||: the largest column sum of |H| and beta so far */
    int64_t steps, restarts;
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
    for (int64_t i = 0; L->U && i < L->keep; i++)
        if (L->U[i]) spx__v_free(&L->s, L->U[i]);
    if (L->gs.count) spx__gs_buf_free(&L->s, &L->gs);
    spx__free(L->V);
    spx__free(L->U);
    spx__free(L->sums);
    spx__free(L->H);
    spx__free(L->T);
    spx__free(L->theta);
    spx__free(L->S);
    spx__vspace_free(&L->s);
}

/* v_0: the fixed start vector, splitmix64 of the index in [-1, 1), unit. */
static spx_status start_vector(lanczos *L)
{
    double *u = NULL, norm = 0.0;
    spx_status st = spx__alloc((void **)&u, (size_t)L->s.n, sizeof *u, "eigsh start vector");
    if (st != SPX_OK) return st;
    for (int64_t i = 0; i < L->s.n; i++) {
        uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        u[i] = (double)(x >> 11) * 0x1.0p-52 - 1.0;
        norm += u[i] * u[i];
    }
    for (int64_t i = 0; i < L->s.n; i++)
        u[i] /= sqrt(norm);
    st = spx__v_from_host(&L->s, u, &L->V[0], "eigsh basis vector");
    spx__free(u);
    return st;
}

static spx_status lanczos_alloc(lanczos *L)
{
    spx_status st;
    const size_t m = (size_t)L->m;
    SPX_TRY(spx__calloc((void **)&L->V, m + 1, sizeof *L->V, "eigsh basis"));
    SPX_TRY(spx__calloc((void **)&L->U, (size_t)L->keep + 1, sizeof *L->U, "eigsh basis"));
    SPX_TRY(spx__calloc((void **)&L->sums, 2 * m + 3, sizeof *L->sums, "eigsh sums"));
    SPX_TRY(spx__calloc((void **)&L->H, m * m, sizeof *L->H, "eigsh projected matrix"));
    SPX_TRY(spx__calloc((void **)&L->T, m * m, sizeof *L->T, "eigsh projected matrix"));
    SPX_TRY(spx__calloc((void **)&L->theta, m, sizeof *L->theta, "eigsh ritz values"));
    SPX_TRY(spx__calloc((void **)&L->S, m * m, sizeof *L->S, "eigsh ritz vectors"));
    SPX_TRY(spx__gs_buf_alloc(&L->s, 2 * m + 3, &L->gs));
    SPX_TRY(start_vector(L));
    for (size_t i = 1; i <= m; i++)
        SPX_TRY(spx__v_alloc(&L->s, &L->V[i], "eigsh basis vector (basis + 1 of them)"));
    for (int64_t i = 0; i < L->keep; i++)
        SPX_TRY(spx__v_alloc(&L->s, &L->U[i], "eigsh restart vector"));
cleanup:
    return st;
}

/* Step j: column j of H, beta, and v_{j+1} (w = A v_j made orthogonal to
 * v_0..v_j, written straight into V[j + 1]). */
static spx_status step(lanczos *L, int64_t j)
{
    spx_status st;
    const void *const *V = (const void *const *)L->V;
    const int64_t h = 0, h2 = L->m + 1, nrm = 2 * (L->m + 1); /* in L->gs */
    void *w = L->V[j + 1];
    double column = 0.0;
    SPX_TRY(spx_spmv(L->P, 1.0, L->V[j], 0.0, w));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, w, -1, h, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, w, h, h2, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, w, h2, -1, nrm));
    SPX_TRY(spx__v_gs_take(&L->s, &L->gs, L->sums));
    for (int64_t i = 0; i <= j; i++) {
        L->H[i + j * L->m] = L->sums[h + i] + L->sums[h2 + i];
        column += fabs(L->H[i + j * L->m]);
    }
    L->beta = sqrt(L->sums[nrm]);
    L->tnorm = fmax(L->tnorm, column + L->beta);
    L->steps++;
    if (!isfinite(column) || !isfinite(L->beta))
        return spx__error(SPX_ERR_BREAKDOWN, "eigsh: a NaN or Inf at step %lld",
                          (long long)L->steps);
    if (L->beta > 0.0) SPX_TRY(spx__v_axpby(&L->s, 1.0 / L->beta, w, 0.0, w));
cleanup:
    return st;
}

/* Wanted pair t's place among T's q ascending eigenvalues. */
static int64_t wanted(const lanczos *L, int64_t q, int64_t t)
{
    return L->o.which == SPX_EIG_LARGEST ? q - 1 - t : t;
}

/* T of the q steps in the basis, its eigenpairs, and the wanted pairs'
 * residual estimates: *done those that meet tol, *worst the largest
 * relative one. */
static spx_status ritz(lanczos *L, int64_t q, int64_t *done, double *worst)
{
    const int64_t m = L->m;
    for (int64_t j = 0; j < q; j++)
        for (int64_t i = 0; i <= j; i++)
            L->T[i + j * q] = L->T[j + i * q] = L->H[i + j * m];
    if (spx__symeig(q, L->T, L->theta, L->S) != 0)
        return spx__error(SPX_ERR_BREAKDOWN,
                          "eigsh: the projected matrix's eigenvalues did not "
                          "converge (%lld steps)",
                          (long long)L->steps);
    *done = 0;
    *worst = 0.0;
    for (int64_t t = 0; t < L->o.k && t < q; t++) {
        const int64_t i = wanted(L, q, t);
        const double res = L->beta * fabs(L->S[(q - 1) + i * q]), theta = fabs(L->theta[i]);
        const double rel = theta > 0.0 ? res / theta : res;
        *done += rel <= L->o.tol;
        *worst = fmax(*worst, rel);
    }
    return SPX_OK;
}

/* out = V[0..q) times T's eigenvector i: out = 0 - V (-s_i), one pass. */
static spx_status ritz_vector(lanczos *L, int64_t q, int64_t i, void *out)
{
    spx_status st;
    for (int64_t r = 0; r < q; r++)
        L->sums[r] = -L->S[r + i * q];
    if ((st = spx__v_gs_put(&L->s, &L->gs, 0, L->sums, q)) != SPX_OK ||
        (st = spx__v_zero(&L->s, out)) != SPX_OK)
        return st;
    return spx__v_gs(&L->s, &L->gs, q, (const void *const *)L->V, out, 0, -1, -1);
}

/* The thick restart from a full basis: the kept wanted Ritz vectors become
 * v_0..v_{l-1}, v_m becomes v_l; H restarts as diag(theta). */
static spx_status restart(lanczos *L)
{
    spx_status st;
    const int64_t m = L->m, l = L->keep;
    for (int64_t t = 0; t < l; t++)
        if ((st = ritz_vector(L, m, wanted(L, m, t), L->U[t])) != SPX_OK) return st;
    for (int64_t t = 0; t < l; t++) {
        void *old = L->V[t];
        L->V[t] = L->U[t];
        L->U[t] = old;
    }
    void *r = L->V[m];
    L->V[m] = L->V[l];
    L->V[l] = r;
    memset(L->H, 0, (size_t)(m * m) * sizeof *L->H);
    for (int64_t t = 0; t < l; t++)
        L->H[t + t * m] = L->theta[wanted(L, m, t)];
    L->restarts++;
    return SPX_OK;
}

/* values (and vectors) of the k wanted pairs of the q steps in the basis. */
static spx_status deliver(lanczos *L, int64_t q, double *values, void *vectors)
{
    spx_status st;
    for (int64_t t = 0; t < L->o.k; t++) {
        const int64_t i = wanted(L, q, t);
        values[t] = L->theta[i];
        if (!vectors) continue;
        void *out = (char *)vectors + (size_t)t * (size_t)L->s.n * spx__v_entry_bytes(&L->s);
        if ((st = ritz_vector(L, q, i, out)) != SPX_OK) return st;
    }
    return SPX_OK;
}

/* Cycles of steps and restarts until the wanted pairs meet tol, V spans an
 * invariant subspace or max_steps pass: *q the steps in the final basis,
 * *done the wanted pairs converged, *worst their largest estimate. */
static spx_status iterate(lanczos *L, int64_t *q, int64_t *done, double *worst)
{
    spx_status st;
    int64_t l = 0;
    for (;;) {
        int invariant = 0;
        int64_t j = l;
        for (; j < L->m && !invariant && L->steps < L->o.max_steps; j++) {
            if ((st = step(L, j)) != SPX_OK) return st;
            invariant = L->beta <= 16.0 * DBL_EPSILON * L->tnorm || j + 1 == L->s.n;
        }
        *q = j;
        if (invariant) L->beta = 0.0; /* the Ritz values are eigenvalues */
        if ((st = ritz(L, *q, done, worst)) != SPX_OK) return st;
        if (*done == L->o.k || invariant || L->steps >= L->o.max_steps || *q < L->m) return SPX_OK;
        if ((st = restart(L)) != SPX_OK) return st;
        l = L->keep;
    }
}

spx_status spx_eigsh(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                     spx_eig_info *info)
{
    lanczos L;
    spx_status st;
    int64_t q = 0, done = 0;
    double worst = INFINITY, t0 = spx__solve_now_ms();
    memset(&L, 0, sizeof L);
    L.P = P;
    L.o = o ? *o : spx_eig_opts_default();
    if (!values) return spx__error(SPX_ERR_INVALID_ARG, "eigsh: values is NULL");
    if ((st = spx__vspace_init(P, &L.s)) != SPX_OK) return st;
    SPX_TRY(check_opts(&L.o, L.s.n));
    L.m = L.o.basis ? L.o.basis : (2 * L.o.k + 1 > L.o.k + 32 ? 2 * L.o.k + 1 : L.o.k + 32);
    if (L.m > L.s.n) L.m = L.s.n;
    L.keep = L.o.k + (L.m - L.o.k) / 2;
    if (L.keep > L.m - 1) L.keep = L.m - 1;
    SPX_TRY(lanczos_alloc(&L));
    SPX_TRY(iterate(&L, &q, &done, &worst));
    if (q < L.o.k) {
        st = spx__error(SPX_ERR_BREAKDOWN,
                        "eigsh: the start vector's Krylov space has %lld dimensions, fewer than "
                        "k = %lld",
                        (long long)q, (long long)L.o.k);
        goto cleanup;
    }
    SPX_TRY(deliver(&L, q, values, vectors));
    if (done < L.o.k)
        st = spx__error(SPX_ERR_NOT_CONVERGED,
                        "eigsh: %lld of %lld pairs met tol %g after %lld steps (max_steps)",
                        (long long)done, (long long)L.o.k, L.o.tol, (long long)L.steps);
cleanup:
    if (info) {
        info->steps = L.steps;
        info->restarts = L.restarts;
        info->converged = done;
        info->max_residual = worst;
        info->ms = spx__solve_now_ms() - t0;
    }
    lanczos_free(&L);
    return st;
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
