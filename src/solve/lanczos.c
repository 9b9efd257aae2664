/* spx_eigsh: the Lanczos method with full reorthogonalisation, on any square
 * SpMV plan of a symmetric A:
 *   v_0 = u / ||u||, u a fixed pseudo-random vector;
 *   step j: w = A v_j; h = V'w, w -= V h; h' = V'w, w -= V h' (V = v_0..v_j,
 *           classical Gram-Schmidt twice: vec_gs.h's three passes);
 *           alpha_j = h_j + h'_j, beta_{j+1} = ||w||, v_{j+1} = w / beta_{j+1}.
 * T = tridiag(beta, alpha, beta), j + 1 square, is V'AV; its eigenpairs
 * (theta_i, s_i) give the Ritz pairs (theta_i, V s_i), whose residual
 * ||A V s_i - theta_i V s_i|| is beta_{j+1} |s_i(j)| (Paige). After each
 * step from the k-th on, T's eigenvalues and the last entries of its
 * eigenvectors (tridiag.h) decide: the k wanted pairs all meet tol, or
 * beta_{j+1} vanishes against ||T|| (V spans an invariant subspace: the
 * Ritz values are eigenvalues), or max_steps pass. The Ritz vectors are one
 * more pass each (V s_i: w = 0 - V (-s_i)). Without the reorthogonalisation
 * the basis loses orthogonality as Ritz values converge and copies of them
 * appear; with it a step costs three passes over j + 1 vectors, and the
 * whole run O(m^2 n) for m steps. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "solve/solve.h"
#include "solve/tridiag.h"
#include "solve/vec_gs.h"

#define EIG_MAX_STEPS 200 /* spx_eig_opts.max_steps's default */

typedef struct lanczos {
    const spx_plan *P;
    spx__vspace s;
    spx_eig_opts o;
    int64_t m;         /* steps at most */
    void **V;          /* m + 1 basis vectors */
    void *w;           /* the step's new vector */
    spx__gs_buf gs;    /* h at 0, h' at m + 1, ||w||^2 at 2m + 2, where the vectors are */
    double *sums;      /* their host copy */
    double *alpha;     /* T's diagonal */
    double *beta;      /* beta[j] = T(j - 1, j), beta[0] unused */
    double *d, *e, *z; /* T's eigenvalues, its off-diagonal (destroyed), Q's rows */
    double tnorm;      /* a bound on ||T||: the largest row sum of |T| so far */
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
    return SPX_OK;
}

static void lanczos_free(lanczos *L)
{
    for (int64_t i = 0; L->V && i <= L->m; i++)
        if (L->V[i]) spx__v_free(&L->s, L->V[i]);
    if (L->w) spx__v_free(&L->s, L->w);
    if (L->gs.count) spx__gs_buf_free(&L->s, &L->gs);
    spx__free(L->V);
    spx__free(L->sums);
    spx__free(L->alpha);
    spx__free(L->beta);
    spx__free(L->d);
    spx__free(L->e);
    spx__free(L->z);
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
    SPX_TRY(spx__calloc((void **)&L->sums, 2 * m + 3, sizeof *L->sums, "eigsh sums"));
    SPX_TRY(spx__calloc((void **)&L->alpha, m, sizeof *L->alpha, "eigsh tridiagonal"));
    SPX_TRY(spx__calloc((void **)&L->beta, m + 1, sizeof *L->beta, "eigsh tridiagonal"));
    SPX_TRY(spx__calloc((void **)&L->d, m, sizeof *L->d, "eigsh ritz values"));
    SPX_TRY(spx__calloc((void **)&L->e, m, sizeof *L->e, "eigsh ritz values"));
    SPX_TRY(spx__calloc((void **)&L->z, m * m, sizeof *L->z, "eigsh ritz vectors"));
    SPX_TRY(spx__gs_buf_alloc(&L->s, 2 * m + 3, &L->gs));
    SPX_TRY(start_vector(L));
    for (size_t i = 1; i <= m; i++)
        SPX_TRY(spx__v_alloc(&L->s, &L->V[i], "eigsh basis vector (max_steps + 1 of them)"));
    SPX_TRY(spx__v_alloc(&L->s, &L->w, "eigsh work vector"));
cleanup:
    return st;
}

/* Step j: alpha_j, and beta_{j+1} = ||w|| with w = A v_j made orthogonal
 * to v_0..v_j. */
static spx_status step(lanczos *L, int64_t j)
{
    spx_status st;
    const void *const *V = (const void *const *)L->V;
    const int64_t h = 0, h2 = L->m + 1, nrm = 2 * (L->m + 1); /* in L->gs */
    SPX_TRY(spx_spmv(L->P, 1.0, L->V[j], 0.0, L->w));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, L->w, -1, h, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, L->w, h, h2, -1));
    SPX_TRY(spx__v_gs(&L->s, &L->gs, j + 1, V, L->w, h2, -1, nrm));
    SPX_TRY(spx__v_gs_take(&L->s, &L->gs, L->sums));
    L->alpha[j] = L->sums[h + j] + L->sums[h2 + j];
    L->beta[j + 1] = sqrt(L->sums[nrm]);
    L->tnorm = fmax(L->tnorm, fabs(L->alpha[j]) + L->beta[j] + L->beta[j + 1]);
    if (!isfinite(L->alpha[j]) || !isfinite(L->beta[j + 1]))
        return spx__error(SPX_ERR_BREAKDOWN, "eigsh: a NaN or Inf at step %lld", (long long)j);
cleanup:
    return st;
}

/* T's place of wanted pair t (t < k) among its `steps` ascending eigenvalues. */
static int64_t wanted(const lanczos *L, int64_t steps, int64_t t)
{
    return L->o.which == SPX_EIG_LARGEST ? steps - 1 - t : t;
}

/* T of `steps` steps decomposed, z = Q (rows = steps) or its last row
 * (rows = 1); its wanted pairs' residual estimates: *done the pairs that
 * meet tol, *worst the largest relative estimate. */
static spx_status ritz(lanczos *L, int64_t steps, int64_t rows, int64_t *done, double *worst)
{
    memcpy(L->d, L->alpha, (size_t)steps * sizeof *L->d);
    for (int64_t i = 0; i + 1 < steps; i++)
        L->e[i] = L->beta[i + 1];
    memset(L->z, 0, (size_t)(rows * steps) * sizeof *L->z);
    for (int64_t r = 0; r < rows; r++)
        L->z[r + (steps - rows + r) * rows] = 1.0; /* rows steps - rows .. steps - 1 of I */
    if (spx__tridiag_eig(steps, L->d, L->e, L->z, rows) != 0)
        return spx__error(SPX_ERR_BREAKDOWN,
                          "eigsh: the tridiagonal eigensolver did not "
                          "converge at %lld steps",
                          (long long)steps);
    *done = 0;
    *worst = 0.0;
    for (int64_t t = 0; t < L->o.k && t < steps; t++) {
        const int64_t i = wanted(L, steps, t);
        const double last = L->z[(rows - 1) + i * rows], theta = fabs(L->d[i]);
        const double res = L->beta[steps] * fabs(last), rel = theta > 0.0 ? res / theta : res;
        *done += rel <= L->o.tol;
        *worst = fmax(*worst, rel);
    }
    return SPX_OK;
}

/* values (and vectors) of the k wanted pairs of `steps` steps. */
static spx_status deliver(lanczos *L, int64_t steps, double *values, void *vectors)
{
    spx_status st = SPX_OK;
    int64_t done;
    double worst;
    const int64_t k = L->o.k < steps ? L->o.k : steps;
    if (vectors && (st = ritz(L, steps, steps, &done, &worst)) != SPX_OK) return st;
    for (int64_t t = 0; t < k; t++) {
        const int64_t i = wanted(L, steps, t);
        values[t] = L->d[i];
        if (!vectors) continue;
        for (int64_t q = 0; q < steps; q++)
            L->sums[q] = -L->z[q + i * steps]; /* V s_i = 0 - V (-s_i) */
        char *out = (char *)vectors + (size_t)t * (size_t)L->s.n * spx__v_entry_bytes(&L->s);
        if ((st = spx__v_gs_put(&L->s, &L->gs, 0, L->sums, steps)) != SPX_OK ||
            (st = spx__v_zero(&L->s, L->w)) != SPX_OK ||
            (st = spx__v_gs(&L->s, &L->gs, steps, (const void *const *)L->V, L->w, 0, -1, -1)) !=
                SPX_OK ||
            (st = spx__v_axpby(&L->s, 1.0, L->w, 0.0, out)) != SPX_OK)
            return st;
    }
    return SPX_OK;
}

/* The steps until the wanted pairs meet tol, V breaks down or m pass:
 * *steps taken, *done of the wanted pairs converged, *worst their largest
 * estimate. */
static spx_status iterate(lanczos *L, int64_t *steps, int64_t *done, double *worst)
{
    spx_status st = SPX_OK;
    *done = 0;
    *worst = INFINITY;
    for (int64_t j = 0; j < L->m; j++) {
        if ((st = step(L, j)) != SPX_OK) return st;
        *steps = j + 1;
        const int invariant = L->beta[j + 1] <= 16.0 * DBL_EPSILON * L->tnorm;
        if (invariant) L->beta[j + 1] = 0.0; /* the Ritz values are eigenvalues */
        if (j + 1 >= L->o.k || invariant) {
            if ((st = ritz(L, j + 1, 1, done, worst)) != SPX_OK) return st;
            if (*done == L->o.k || invariant) break;
        }
        if (j + 1 < L->m &&
            (st = spx__v_axpby(&L->s, 1.0 / L->beta[j + 1], L->w, 0.0, L->V[j + 1])) != SPX_OK)
            return st;
    }
    return st;
}

spx_status spx_eigsh(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                     spx_eig_info *info)
{
    lanczos L;
    spx_status st;
    int64_t steps = 0, done = 0;
    double worst = INFINITY, t0 = spx__solve_now_ms();
    memset(&L, 0, sizeof L);
    L.P = P;
    L.o = o ? *o : spx_eig_opts_default();
    if (L.o.max_steps == 0) L.o.max_steps = EIG_MAX_STEPS;
    if (!values) return spx__error(SPX_ERR_INVALID_ARG, "eigsh: values is NULL");
    if ((st = spx__vspace_init(P, &L.s)) != SPX_OK) return st;
    SPX_TRY(check_opts(&L.o, L.s.n));
    L.m = L.o.max_steps < L.s.n ? L.o.max_steps : L.s.n;
    if (L.m < L.o.k) L.m = L.o.k;
    SPX_TRY(lanczos_alloc(&L));
    SPX_TRY(iterate(&L, &steps, &done, &worst));
    if (steps < L.o.k) {
        st = spx__error(SPX_ERR_BREAKDOWN,
                        "eigsh: the start vector's Krylov space has %lld dimensions, fewer than "
                        "k = %lld",
                        (long long)steps, (long long)L.o.k);
        goto cleanup;
    }
    SPX_TRY(deliver(&L, steps, values, vectors));
    if (done < L.o.k)
        st = spx__error(SPX_ERR_NOT_CONVERGED,
                        "eigsh: %lld of %lld pairs met tol %g after %lld steps (max_steps)",
                        (long long)done, (long long)L.o.k, L.o.tol, (long long)steps);
cleanup:
    if (info) {
        info->steps = steps;
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
