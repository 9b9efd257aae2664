/* The solvers' register programs (src/solve/scalars.h) on the host, each
 * step alone: set, copy, divide, multiply; the stopping tests with NaN,
 * zero, small and not small; the first stop winning over later ones; a
 * recode only of its code; a coefficient k or k * r[reg]; the relative
 * residual test against ||b|| = 0. The same function runs in one device
 * thread on CUDA plans (cuda/blas1/kernels.cuh). */
#include <math.h>
#include <string.h>

#include "common.h"
#include "solve/scalars.h"

/* r after p on a file whose registers are all 0 but the stopping test's. */
static void run(const spx__sprog *p, double bnorm, double rtol, double *r)
{
    memset(r, 0, SPX__S_REGS * sizeof *r);
    r[SPX__S_BNORM] = bnorm;
    r[SPX__S_RTOL] = rtol;
    spx__sprog_run(r, p);
}

static void test_arithmetic(void)
{
    double r[SPX__S_REGS];
    const spx__sprog p = {5,
                          {{SPX__S_SET, 0, 0, 0, 6.0},
                           {SPX__S_SET, 1, 0, 0, 4.0},
                           {SPX__S_DIV, 2, 0, 1, 0.0},
                           {SPX__S_MUL, 3, 2, 1, 0.0},
                           {SPX__S_COPY, 4, 3, 0, 0.0}}};
    run(&p, 1.0, 0.0, r);
    CHECK(r[2] == 1.5 && r[3] == 6.0 && r[4] == 6.0 && r[SPX__S_STOP] == 0.0);
    CHECK(spx__coef_value((spx__coef){-1.0, 2}, r) == -1.5);
    CHECK(spx__coef_value((spx__coef){0.25, -1}, r) == 0.25);
}

/* The stop code p leaves with register 0 holding v (bnorm 2, rtol 0.5). */
static double stop_with(int kind, double v)
{
    double r[SPX__S_REGS];
    const spx__sprog p = {2, {{SPX__S_SET, 0, 0, 0, v}, {kind, 0, 0, 0, 7.0}}};
    run(&p, 2.0, 0.5, r);
    return r[SPX__S_STOP];
}

static void test_stops(void)
{
    CHECK(stop_with(SPX__S_STOP_UNLESS_POS, 1.0) == 0.0);
    CHECK(stop_with(SPX__S_STOP_UNLESS_POS, 0.0) == 7.0);
    CHECK(stop_with(SPX__S_STOP_UNLESS_POS, -1.0) == 7.0);
    CHECK(stop_with(SPX__S_STOP_UNLESS_POS, NAN) == 7.0);
    CHECK(stop_with(SPX__S_STOP_IF_ZERO, 0.0) == 7.0);
    CHECK(stop_with(SPX__S_STOP_IF_ZERO, NAN) == 7.0);
    CHECK(stop_with(SPX__S_STOP_IF_ZERO, -3.0) == 0.0);
    /* sqrt(r) / ||b|| <= rtol: 1 / 2 stops at rtol 0.5, sqrt(1.0001) / 2 does not */
    CHECK(stop_with(SPX__S_STOP_IF_SMALL, 1.0) == 7.0);
    CHECK(stop_with(SPX__S_STOP_IF_SMALL, 1.0001) == 0.0);
    CHECK(stop_with(SPX__S_STOP_IF_SMALL, NAN) == SPX__S_NAN);
}

static void test_first_stop_wins_and_recode(void)
{
    double r[SPX__S_REGS];
    const spx__sprog p = {5,
                          {{SPX__S_SET, 0, 0, 0, 0.0},
                           {SPX__S_STOP_IF_ZERO, 0, 0, 0, 3.0},
                           {SPX__S_STOP_UNLESS_POS, 0, 0, 0, 4.0},
                           {SPX__S_RECODE, 0, 0, 4, 9.0},
                           {SPX__S_RECODE, 0, 0, 3, 5.0}}};
    run(&p, 1.0, 0.0, r);
    CHECK(r[SPX__S_STOP] == 5.0); /* 3 first; the recode of 4 does nothing, of 3 makes it 5 */
    /* ||b|| = 0: the residual itself against rtol */
    const spx__sprog q = {2, {{SPX__S_SET, 0, 0, 0, 0.25}, {SPX__S_STOP_IF_SMALL, 0, 0, 0, 1.0}}};
    run(&q, 0.0, 0.5, r);
    CHECK(r[SPX__S_STOP] == 1.0);
    run(&q, 0.0, 0.4, r);
    CHECK(r[SPX__S_STOP] == 0.0);
}

int main(void)
{
    test_arithmetic();
    test_stops();
    test_first_stop_wins_and_recode();
    return spx_test_finish();
}
