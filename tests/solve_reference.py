"""Iteration counts of scipy's cg and gmres that tests/test_solve.c compares with.

Builds the 3D 7-point Laplacian lap3d7:16 as SpX's generator does (6 on the
diagonal, -1 to each of the six neighbours on a 16^3 grid), b = ones, x0 = 0,
and solves with scipy.sparse.linalg.cg to rtol = 1e-10 without and with the
Jacobi preconditioner. Then the convection-diffusion matrix of
tests/common.c (spx_test_convection_diffusion(40, 0.8): 4 on the diagonal,
-1 up and down, -1 - c/2 left, -1 + c/2 right on a 40^2 grid), b = ones,
x0 = 0, by scipy.sparse.linalg.gmres to rtol = 1e-10 with restarts 10 and
30, counting inner iterations (callback_type="pr_norm"); and its rows scaled by
1 + i % 7, gmres(30) without and with Jacobi applied on the right.
Run: python3 tests/solve_reference.py
"""
import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def lap3d7(m):
    one = sp.identity(m, format="csr")
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m), format="csr")
    return (sp.kron(sp.kron(t, one), one) + sp.kron(sp.kron(one, t), one)
            + sp.kron(sp.kron(one, one), t)).tocsr()


def iterations(A, b, M=None):
    count = [0]

    def step(_):
        count[0] += 1

    x, info = sla.cg(A, b, rtol=1e-10, maxiter=10000, M=M, callback=step)
    assert info == 0
    return count[0], np.linalg.norm(b - A @ x) / np.linalg.norm(b)


A = lap3d7(16)
b = np.ones(A.shape[0])
d = A.diagonal()
M = sla.LinearOperator(A.shape, matvec=lambda v: v / d)
print("scipy", scipy.__version__)
print("lap3d7:16 cg %d iterations (residual %.3g)" % iterations(A, b))
print("lap3d7:16 Jacobi-preconditioned cg %d iterations (residual %.3g)" % iterations(A, b, M))


def convection_diffusion(m, c):
    rows, cols, vals = [], [], []
    for i in range(m):
        for j in range(m):
            r = i * m + j
            rows.append(r), cols.append(r), vals.append(4.0)
            for (a, k), w in zip([(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)],
                                 [-1.0, -1.0, -1.0 - c / 2, -1.0 + c / 2]):
                if 0 <= a < m and 0 <= k < m:
                    rows.append(r), cols.append(a * m + k), vals.append(w)
    return sp.csr_matrix((vals, (rows, cols)), shape=(m * m, m * m))


def gmres_iterations(A, b, restart):
    count = [0]

    def step(_):
        count[0] += 1

    x, info = sla.gmres(A, b, rtol=1e-10, restart=restart, maxiter=1000, callback=step,
                        callback_type="pr_norm")
    assert info == 0
    return count[0], np.linalg.norm(b - A @ x) / np.linalg.norm(b)


C = convection_diffusion(40, 0.8)
c = np.ones(C.shape[0])
for m in (10, 30):
    print("convection-diffusion 40x40 gmres(%d) %d iterations (residual %.3g)"
          % ((m,) + gmres_iterations(C, c, m)))
# its rows scaled by 1 + i % 7, gmres(30) without and with Jacobi on the right (A M^-1 u = b)
S = (sp.diags(1.0 + np.arange(C.shape[0]) % 7) @ C).tocsr()
dinv = 1.0 / S.diagonal()
right = sla.LinearOperator(S.shape, matvec=lambda v: S @ (dinv * v))
print("rows scaled gmres(30) %d iterations (residual %.3g)" % gmres_iterations(S, c, 30))
print("rows scaled, Jacobi on the right, gmres(30) %d iterations" % gmres_iterations(right, c, 30)[0])
