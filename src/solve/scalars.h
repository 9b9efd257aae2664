/* A solve's scalars, kept where its vectors are, so that a CUDA solve
 * queues iteration after iteration without waiting for the device: a file of
 * SPX__S_REGS double registers. Dots land in registers; a short program of
 * scalar steps follows them (alpha = rz / pq, a test that stops the solve);
 * the coefficients of vector updates are read from registers. The steps run
 * on the host for CPU and multi-device spaces and in one device thread for
 * CUDA ones, with IEEE division and square root only: the same bits either
 * way, and the same as the host arithmetic they replace.
 *
 * Stopping: register SPX__S_STOP is 0 while the solve goes on. The first
 * step that sets it wins, and every update queued after it (spx__v_lincomb)
 * does nothing, so x stays as the stopping iteration left it whatever was
 * queued behind. Registers SPX__S_BNORM and SPX__S_RTOL hold ||b|| and the
 * tolerance for SPX__S_STOP_IF_SMALL, which repeats spx__solve_record's
 * test: rel = sqrt(r) / ||b|| (sqrt(r) where ||b|| = 0) <= rtol. */
#ifndef SPX_SOLVE_SCALARS_H
#define SPX_SOLVE_SCALARS_H

#include <math.h>

#ifdef __CUDACC__
#define SPX__HD __host__ __device__
#else
#define SPX__HD
#endif

#define SPX__S_REGS 16
enum { SPX__S_STOP = SPX__S_REGS - 3, SPX__S_BNORM, SPX__S_RTOL }; /* 0.. the solver's */
enum { SPX__S_CONVERGED = 1, SPX__S_NAN = 2 };                     /* then the solver's codes */

/* One step: d, a, b registers, imm a value or a stop code. */
enum {
    SPX__S_SET,             /* r[d] = imm */
    SPX__S_COPY,            /* r[d] = r[a] */
    SPX__S_DIV,             /* r[d] = r[a] / r[b] */
    SPX__S_MUL,             /* r[d] = r[a] * r[b] */
    SPX__S_STOP_UNLESS_POS, /* stop with code imm unless r[a] > 0 (NaN stops) */
    SPX__S_STOP_IF_ZERO,    /* stop with code imm where r[a] is 0 or NaN */
    SPX__S_RECODE,          /* stopped with code b: now with code imm */
    SPX__S_STOP_IF_SMALL    /* r[a] a squared norm: NaN stops with SPX__S_NAN, rel <= rtol
                               with code imm */
};
typedef struct spx__sop {
    int kind, d, a, b;
    double imm;
} spx__sop;

#define SPX__S_MAX_OPS 12
typedef struct spx__sprog {
    int n;
    spx__sop op[SPX__S_MAX_OPS];
} spx__sprog;

/* A coefficient: k, or k * r[reg] (reg >= 0). */
typedef struct spx__coef {
    double k;
    int reg;
} spx__coef;

static inline SPX__HD double spx__coef_value(spx__coef c, const double *r)
{
    return c.reg < 0 ? c.k : c.k * r[c.reg];
}

static inline SPX__HD void spx__sprog_stop(double *r, double code)
{
    if (r[SPX__S_STOP] == 0.0) r[SPX__S_STOP] = code;
}

static inline SPX__HD void spx__sprog_run(double *r, const spx__sprog *p)
{
    for (int k = 0; k < p->n; k++) {
        const spx__sop *o = &p->op[k];
        double a = r[o->a];
        switch (o->kind) {
        case SPX__S_SET: r[o->d] = o->imm; break;
        case SPX__S_COPY: r[o->d] = a; break;
        case SPX__S_DIV: r[o->d] = a / r[o->b]; break;
        case SPX__S_MUL: r[o->d] = a * r[o->b]; break;
        case SPX__S_STOP_UNLESS_POS:
            if (!(a > 0.0)) spx__sprog_stop(r, o->imm);
            break;
        case SPX__S_STOP_IF_ZERO:
            if (a == 0.0 || isnan(a)) spx__sprog_stop(r, o->imm);
            break;
        case SPX__S_RECODE:
            if (r[SPX__S_STOP] == o->b) r[SPX__S_STOP] = o->imm;
            break;
        case SPX__S_STOP_IF_SMALL: {
            double rn = sqrt(a), b = r[SPX__S_BNORM];
            if (isnan(a))
                spx__sprog_stop(r, SPX__S_NAN);
            else if ((b > 0.0 ? rn / b : rn) <= r[SPX__S_RTOL])
                spx__sprog_stop(r, o->imm);
            break;
        }
        default: break; /* no other kind is made */
        }
    }
}

#endif
