"""Iteration counts of scipy's cg that tests/test_solve.c compares with.

Builds the 3D 7-point Laplacian lap3d7:16 as SpX's generator does (6 on the
diagonal, -1 to each of the six neighbours on a 16^3 grid), b = ones, x0 = 0,
and solves with scipy.sparse.linalg.cg to rtol = 1e-10 without and with the
Jacobi preconditioner. Run: python3 tests/solve_reference.py
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
