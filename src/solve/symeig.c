/* The cyclic Jacobi method (symeig.h): sweep after sweep, each
 * off-diagonal pair (p, q) is zeroed by a plane rotation J, a = J' a J,
 * with the rotation also applied to z's columns (z = product of the J), until
 * the off-diagonal part is negligible against the diagonal. Its
 * rotation: theta = (a_qq - a_pp) / (2 a_pq), t = sign(theta) /
 * (|theta| + sqrt(theta^2 + 1)) (the smaller angle), c = 1 / sqrt(t^2 + 1),
 * s = t c. O(m^3) a sweep, about 6-10 sweeps: for Lanczos's bases of tens
 * to a few hundred vectors, the projected matrix costs less than a product. */
#include "solve/symeig.h"

#include <float.h>
#include <math.h>

#define SWEEPS 60

static double off_diagonal(int64_t m, const double *a)
{
    double s = 0.0;
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < j; i++)
            s += a[i + j * m] * a[i + j * m];
    return s;
}

static double diagonal(int64_t m, const double *a)
{
    double s = 0.0;
    for (int64_t i = 0; i < m; i++)
        s += a[i + i * m] * a[i + i * m];
    return s;
}

/* a = J' a J and z = z J for the rotation zeroing a_pq. */
static void rotate(int64_t m, double *a, double *z, int64_t p, int64_t q)
{
    const double apq = a[p + q * m];
    if (apq == 0.0) return;
    const double theta = (a[q + q * m] - a[p + p * m]) / (2.0 * apq);
    const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
    const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
    for (int64_t k = 0; k < m; k++) { /* columns p and q */
        const double akp = a[k + p * m], akq = a[k + q * m];
        a[k + p * m] = c * akp - s * akq;
        a[k + q * m] = s * akp + c * akq;
    }
    for (int64_t k = 0; k < m; k++) { /* rows p and q */
        const double apk = a[p + k * m], aqk = a[q + k * m];
        a[p + k * m] = c * apk - s * aqk;
        a[q + k * m] = s * apk + c * aqk;
    }
    for (int64_t k = 0; k < m; k++) {
        const double zkp = z[k + p * m], zkq = z[k + q * m];
        z[k + p * m] = c * zkp - s * zkq;
        z[k + q * m] = s * zkp + c * zkq;
    }
}

/* lambda ascending, z's columns with them (selection sort). */
static void sort_pairs(int64_t m, double *lambda, double *z)
{
    for (int64_t i = 0; i < m; i++) {
        int64_t low = i;
        for (int64_t j = i + 1; j < m; j++)
            if (lambda[j] < lambda[low]) low = j;
        if (low == i) continue;
        const double t = lambda[i];
        lambda[i] = lambda[low];
        lambda[low] = t;
        for (int64_t k = 0; k < m; k++) {
            const double u = z[k + i * m];
            z[k + i * m] = z[k + low * m];
            z[k + low * m] = u;
        }
    }
}

int spx__symeig(int64_t m, double *a, double *lambda, double *z)
{
    int rc = -1;
    for (int64_t i = 0; i < m * m; i++)
        z[i] = 0.0;
    for (int64_t i = 0; i < m; i++)
        z[i + i * m] = 1.0;
    for (int sweep = 0; sweep < SWEEPS; sweep++) {
        if (off_diagonal(m, a) <= DBL_EPSILON * DBL_EPSILON * diagonal(m, a)) {
            rc = 0;
            break;
        }
        for (int64_t p = 0; p < m; p++)
            for (int64_t q = p + 1; q < m; q++)
                rotate(m, a, z, p, q);
    }
    for (int64_t i = 0; i < m; i++)
        lambda[i] = a[i + i * m];
    sort_pairs(m, lambda, z);
    return rc;
}
