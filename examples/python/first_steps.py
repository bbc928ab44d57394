"""first_steps.py — hspmv from Python on one process: a SciPy matrix
prepared once, its product checked against SciPy's, SciPy's CG on hspmv's
products. From the repository root, after `make python`:
    PYTHONPATH=python python3 examples/python/first_steps.py"""
import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spla
import hspmv

T = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(64, 64))
scipy_csr = (sp.kron(sp.eye(64), T) + sp.kron(T, sp.eye(64))).tocsr()   # 2D Laplacian, 4096 rows

A = hspmv.Matrix(scipy_csr, threads=2)   # or hspmv.Matrix.read("matrices/lap2d_64.mtx"); float32: libhspmv_single
x = np.random.default_rng(1).uniform(-1, 1, A.shape[1])
y = A @ x                                # also A.dot(x), A * x, A.matmat(X), A.T @ x, A.diagonal()
assert np.allclose(y, scipy_csr @ x)

b = A @ np.ones(A.shape[1])
x, info = spla.cg(A, b, atol=0)          # A is a LinearOperator: SciPy's solvers on hspmv's products
assert info == 0
print("first_steps: y = A x matches SciPy; cg converged, max |x - 1| = %.1e" % abs(x - 1).max())
