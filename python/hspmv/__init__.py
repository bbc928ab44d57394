"""hspmv — sparse matrix-vector products on one process (Matrix) or many
(DistMatrix, with mpi4py), on the hspmv C library (libhspmv.so for float64,
libhspmv_single.so for float32). See docs/python.md."""
import numpy as np

from ._error import Error, CODE_NAMES
from ._matrix import Matrix
from ._dist import DistMatrix
from ._solve import cg, bicgstab, SolveResult
from . import _backend

for _i, _n in enumerate(CODE_NAMES[1:], 1):
    globals()["ERR_" + _n] = _i
del _i, _n

__version__ = "0.2.0"


def library_version(dtype=np.float64):
    """hspmv_version() of the library behind dtype."""
    return _backend.core(dtype).version()


def read_csr(path, dtype=np.float64, read_threads=0):
    """Reads a Matrix Market or PETSc binary file with hspmv_csr_read into a
    scipy.sparse.csr_matrix (duplicates summed, columns ascending)."""
    import scipy.sparse as sp

    rt = _backend.count(read_threads, "read_threads", 0)
    nrows, ncols, indptr, indices, data = _backend.core(dtype).read_csr(path, rt)
    return sp.csr_matrix((data, indices, indptr), shape=(nrows, ncols), copy=False)
