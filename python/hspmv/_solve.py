"""_solve.py — the library's Krylov solvers (CG, BiCGStab) on a DistMatrix."""
from dataclasses import dataclass

import numpy as np

from ._error import Error
from ._dist import DistMatrix, agreed

_METHODS = {"cg": 0, "bicgstab": 1}


@dataclass
class SolveResult:
    """What a solve did (the same on every rank, times aside)."""
    iterations: int
    relres: float        # last recurrence residual ||r|| / ||b||
    relres_true: float   # ||b - A x|| / ||b|| recomputed at exit (-1 if not reached)
    spmv_calls: int
    total_s: float       # this rank's wall time of the solve
    spmv_s: float        # of which in the products


def solve(method, A, b, x0=None, tol=1e-8, maxit=1000, diag=None):
    """The one place the solvers are reached: returns (x, SolveResult) or raises
    hspmv.Error (NOCONV, BREAKDOWN, ... with .x and .result) on every rank."""
    if not isinstance(A, DistMatrix):
        raise TypeError("hspmv's solvers take a DistMatrix; for hspmv.Matrix use "
                        "scipy.sparse.linalg.cg(A.aslinearoperator(), b)")
    n = A.local_shape[0]

    def vec(v, name):
        a = np.ascontiguousarray(v, dtype=A.dtype)
        if a.shape != (n,):
            raise ValueError(f"{name} of shape {a.shape}: this rank's part has {n} entries")
        return a

    def check():
        if method not in _METHODS:
            raise ValueError(f"method must be cg or bicgstab, not {method!r}")
        return (vec(b, "b"), None if x0 is None else vec(x0, "x0"), None if diag is None else vec(diag, "diag"),
                float(tol), int(maxit))

    bb, xx, dd, tol_, maxit_ = agreed(A.comm, check)
    x = A.vector("y")
    if xx is not None:
        x[:] = xx
    code, msg, res = A._c.solve(_METHODS[method], bb, x, tol_, maxit_, dd)
    result = SolveResult(**res)
    if code:
        raise Error(msg, code, x=x, result=result)
    return x, result


def cg(A, b, x0=None, tol=1e-8, maxit=1000, diag=None):
    """Conjugate gradients on a symmetric positive definite DistMatrix
    (hspmv_solve with HSPMV_SOLVER_CG): b and x0 are this rank's parts (nrows_local entries);
    diag: this rank's part of A's diagonal for Jacobi. Collective.
    Returns (x, SolveResult)."""
    return solve("cg", A, b, x0, tol, maxit, diag)


def bicgstab(A, b, x0=None, tol=1e-8, maxit=1000, diag=None):
    """BiCGStab on a square DistMatrix (hspmv_solve with HSPMV_SOLVER_BICGSTAB), like cg."""
    return solve("bicgstab", A, b, x0, tol, maxit, diag)
