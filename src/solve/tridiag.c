/* The implicit QL method on a symmetric tridiagonal matrix (tridiag.h).
 * For each l, while T's off-diagonal e[l] is not negligible: find the first
 * mm >= l with e[mm] negligible against |d[mm]| + |d[mm+1]| (the block
 * l..mm is unreduced), shift by the eigenvalue of the trailing 2 x 2 of
 * d[l], d[l+1], e[l] nearest d[l] (Wilkinson), and chase the bulge from mm
 * up to l with plane rotations, each also applied to the columns of z: the
 * product of the rotations is Q, and z = B Q for the rows B of I given. */
#include "solve/tridiag.h"

#include <float.h>
#include <math.h>

/* Columns i and i + 1 of z (rows x m) rotated by (c, s). */
static void rotate_columns(int64_t rows, double *z, int64_t i, double c, double s)
{
    double *a = z + i * rows, *b = z + (i + 1) * rows;
    for (int64_t k = 0; k < rows; k++) {
        const double f = b[k];
        b[k] = s * a[k] + c * f;
        a[k] = c * a[k] - s * f;
    }
}

/* The first mm >= l whose e[mm] is negligible (mm = m - 1 at the end). */
static int64_t block_end(int64_t m, const double *d, const double *e, int64_t l)
{
    int64_t mm = l;
    for (; mm < m - 1; mm++)
        if (fabs(e[mm]) <= DBL_EPSILON * (fabs(d[mm]) + fabs(d[mm + 1]))) break;
    return mm;
}

/* One QL sweep of the block l..mm with the shift taken from d[l]. */
static void sweep(int64_t rows, double *d, double *e, double *z, int64_t l, int64_t mm)
{
    double g = (d[l + 1] - d[l]) / (2.0 * e[l]), r = hypot(g, 1.0);
    double s = 1.0, c = 1.0, p = 0.0;
    int64_t i;
    g = d[mm] - d[l] + e[l] / (g + copysign(r, g));
    for (i = mm - 1; i >= l; i--) {
        const double f = s * e[i], b = c * e[i];
        r = hypot(f, g);
        e[i + 1] = r;
        if (r == 0.0) { /* the block splits at i + 1: start over with it */
            d[i + 1] -= p;
            e[mm] = 0.0;
            return;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2.0 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        rotate_columns(rows, z, i, c, s);
    }
    d[l] -= p;
    e[l] = g;
    e[mm] = 0.0;
}

/* d ascending, z's columns with them (selection sort: m is a Lanczos basis). */
static void sort_pairs(int64_t m, double *d, double *z, int64_t rows)
{
    for (int64_t i = 0; i < m; i++) {
        int64_t low = i;
        for (int64_t j = i + 1; j < m; j++)
            if (d[j] < d[low]) low = j;
        if (low == i) continue;
        const double t = d[i];
        d[i] = d[low];
        d[low] = t;
        for (int64_t k = 0; k < rows; k++) {
            const double u = z[k + i * rows];
            z[k + i * rows] = z[k + low * rows];
            z[k + low * rows] = u;
        }
    }
}

int spx__tridiag_eig(int64_t m, double *d, double *e, double *z, int64_t rows)
{
    if (m > 0) e[m - 1] = 0.0;
    for (int64_t l = 0; l < m; l++) {
        int sweeps = 0;
        for (int64_t mm = block_end(m, d, e, l); mm != l; mm = block_end(m, d, e, l)) {
            if (++sweeps > 60) return -1;
            sweep(rows, d, e, z, l, mm);
        }
    }
    sort_pairs(m, d, z, rows);
    return 0;
}
