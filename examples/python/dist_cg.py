"""dist_cg.py — hspmv from Python on several ranks (mpi4py): a matrix read
in parallel, b scattered from rank 0, the library's CG. From the repository
root, after `make python`:
    PYTHONPATH=python mpirun -n 2 python3 examples/python/dist_cg.py"""
import numpy as np
import hspmv

D = hspmv.DistMatrix.read("matrices/lap2d_64.mtx", read="parallel")   # rows split by nonzeros
b_root = np.ones(D.shape[0]) if D.comm.rank == 0 else None             # the whole b, on rank 0 only
x, res = hspmv.cg(D, D.scatter(b_root, "y"), tol=1e-8)                 # this rank's part of x
x_root = D.gather(x, "y")                                              # the whole x, on rank 0
if D.comm.rank == 0:
    print("dist_cg: %d ranks, %d iterations, ||b - A x|| / ||b|| = %.1e" % (D.comm.size, res.iterations, res.relres_true))
    assert res.relres_true < 1e-7 and x_root.shape == (D.shape[0],)
