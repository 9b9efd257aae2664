/* The scalars of spx_cg_many's k columns (cg_many.c), kept where the
 * vectors are: field f of column j at c[f*k + j], in doubles. Each column
 * is a CG of its own (cg.c's math, step by step):
 *   begin   after r = b - A x, z = M^-1 r and the dots rr, rz: the column
 *           stops at once when its residual already meets rtol;
 *   step    the column moves (x += alpha p, r -= alpha q with alpha = rz /
 *           pq) while live and pq > 0;
 *   turn    after the step's dots rr_new (rz_new): pq <= 0 or NaN stops it
 *           (not SPD), else rr = rr_new; a NaN, or rel <= rtol, stops it;
 *           else beta = rz_new / rz, rz = rz_new.
 * rel = sqrt(rr) / ||b|| (sqrt(rr) where ||b|| = 0), spx_cg's test. The
 * steps run on the host for CPU plans and on the device for CUDA ones, with
 * IEEE division and square root only: the same bits either way. */
#ifndef SPX_SOLVE_MANY_COLS_H
#define SPX_SOLVE_MANY_COLS_H

#include <math.h>
#include <stdint.h>

#include "solve/scalars.h" /* SPX__HD, stop codes */

enum {
    SPX__CM_RR, /* r'r */
    SPX__CM_RZ, /* r'z (r'r without a preconditioner) */
    SPX__CM_PQ, /* p'q */
    SPX__CM_RR_NEW,
    SPX__CM_RZ_NEW,
    SPX__CM_BETA,
    SPX__CM_LIVE,  /* 1 while the column iterates */
    SPX__CM_CODE,  /* why it stopped: 0, SPX__S_CONVERGED, SPX__S_NAN, SPX__CM_NOT_SPD */
    SPX__CM_ITERS, /* the iteration it reached (or stopped in) */
    SPX__CM_BNORM, /* ||b_j|| */
    SPX__CM_FIELDS
};
enum { SPX__CM_NOT_SPD = SPX__S_NAN + 1 };

/* The column-wide steps (cols kernels and host loops). */
enum { SPX__CM_SET_BNORM, SPX__CM_BEGIN, SPX__CM_TURN };

static inline SPX__HD double spx__cm_rel(const double *c, int64_t k, int64_t j)
{
    double rn = sqrt(c[SPX__CM_RR * k + j]), b = c[SPX__CM_BNORM * k + j];
    return b > 0.0 ? rn / b : rn;
}

static inline SPX__HD void spx__cm_stop(double *c, int64_t k, int64_t j, double code)
{
    c[SPX__CM_LIVE * k + j] = 0.0;
    c[SPX__CM_CODE * k + j] = code;
}

/* rr is new: NaN or small enough stops the column. Returns 1 if it stopped. */
static inline SPX__HD int spx__cm_test(double *c, int64_t k, int64_t j, double rtol)
{
    if (isnan(c[SPX__CM_RR * k + j])) {
        spx__cm_stop(c, k, j, SPX__S_NAN);
        return 1;
    }
    if (spx__cm_rel(c, k, j) <= rtol) {
        spx__cm_stop(c, k, j, SPX__S_CONVERGED);
        return 1;
    }
    return 0;
}

/* Whether column j moves in this iteration's step, and by alpha. */
static inline SPX__HD int spx__cm_moves(const double *c, int64_t k, int64_t j, double *alpha)
{
    double pq = c[SPX__CM_PQ * k + j];
    *alpha = c[SPX__CM_RZ * k + j] / pq;
    return c[SPX__CM_LIVE * k + j] != 0.0 && pq > 0.0;
}

/* One column-wide step for column j (jacobi: rz is its own dot, else rr). */
static inline SPX__HD void spx__cm_apply(double *c, int64_t k, int64_t j, int step, int64_t it,
                                         double rtol, int jacobi)
{
    switch (step) {
    case SPX__CM_SET_BNORM: c[SPX__CM_BNORM * k + j] = sqrt(c[SPX__CM_RR * k + j]); break;
    case SPX__CM_BEGIN:
        c[SPX__CM_LIVE * k + j] = 1.0;
        c[SPX__CM_CODE * k + j] = 0.0;
        c[SPX__CM_ITERS * k + j] = 0.0;
        if (!jacobi) c[SPX__CM_RZ * k + j] = c[SPX__CM_RR * k + j];
        spx__cm_test(c, k, j, rtol);
        break;
    case SPX__CM_TURN: {
        if (c[SPX__CM_LIVE * k + j] == 0.0) break;
        c[SPX__CM_ITERS * k + j] = (double)it;
        if (!(c[SPX__CM_PQ * k + j] > 0.0)) {
            spx__cm_stop(c, k, j, SPX__CM_NOT_SPD);
            break;
        }
        double rz_new = c[(jacobi ? SPX__CM_RZ_NEW : SPX__CM_RR_NEW) * k + j];
        c[SPX__CM_RR * k + j] = c[SPX__CM_RR_NEW * k + j];
        if (spx__cm_test(c, k, j, rtol)) break;
        c[SPX__CM_BETA * k + j] = rz_new / c[SPX__CM_RZ * k + j];
        c[SPX__CM_RZ * k + j] = rz_new;
        break;
    }
    default: break; /* no other step is made */
    }
}

#endif
