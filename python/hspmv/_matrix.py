"""_matrix.py — hspmv.Matrix: one process's prepared matrix (hspmv_local) with
NumPy products, SciPy input and a scipy.sparse.linalg LinearOperator."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from . import _backend

_INT32_MAX = 2**31 - 1


def _dtype_of(A, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    dt = np.dtype(A.dtype)
    if dt in (np.float64, np.float32):
        return dt
    if dt.kind == "c":
        raise TypeError("hspmv holds real matrices only, not complex")
    return np.dtype(np.float64)


def csr_arrays(A, dtype, index_dtype, canonical=True):
    """A's CSR arrays as the library takes them: indptr int64, indices of
    index_dtype, data of dtype, all contiguous; those already so are used
    in place; canonical: columns sorted and duplicates summed (on a copy)
    when they are not (hspmv_local_create wants them so, hspmv_dist_create
    does not). Returns (indptr, indices, data, copied names)."""
    if not sp.issparse(A):
        raise TypeError(f"expected a scipy.sparse matrix or array, not {type(A).__name__}")
    if np.dtype(A.dtype).kind == "c":
        raise TypeError("hspmv holds real matrices only, not complex")
    copied = []
    if A.format != "csr":
        A, copied = A.tocsr(), ["all (converted to CSR)"]
    if A.shape[1] > _INT32_MAX:
        raise ValueError(f"{A.shape[1]} columns: hspmv takes at most 2^31-1")
    if canonical and not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
        copied = ["all (columns sorted, duplicates summed)"]

    def take(a, dt, name):
        if a.dtype == dt and a.flags.c_contiguous and a.flags.aligned and a.dtype.isnative:
            return a
        copied.append(name)
        return np.ascontiguousarray(a, dtype=dt)

    return (take(A.indptr, np.dtype(np.int64), "indptr"), take(A.indices, np.dtype(index_dtype), "indices"),
            take(A.data, dtype, "data"), tuple(dict.fromkeys(copied)))


class _Transposed:
    """A.T: products with the transpose (hspmv_local_spmm with HSPMV_TRANSPOSE)."""

    def __init__(self, A):
        self._A = A
        self.shape = A.shape[::-1]
        self.dtype = A.dtype

    def __matmul__(self, x):
        return self._A._c.mul(x, None, True)

    def matvec(self, x, out=None):
        return self._A._c.mul(x, out, True)

    @property
    def T(self):
        return self._A


class Matrix:
    """A sparse matrix prepared for repeated products on one process.

    Matrix(A, threads=None, dtype=None, format="auto", kernel="auto", csrl_threshold=None, symmetric="no")
    A is any scipy.sparse matrix or array (CSR is used in place when its
    arrays allow, see docs/python.md); dtype float64 (libhspmv) or float32
    (libhspmv_single), by default A's own when it is one of them.
    threads: OpenMP threads of each product (None: OMP_NUM_THREADS / all).
    symmetric: "no" (default) keeps both triangles; "auto" keeps one triangle
    of a symmetric or skew-symmetric A (format "auto"; info["symmetric"] says
    1 or -1); "yes" always (an error when A is neither); docs/python.md."""

    def __init__(self, A, threads=None, dtype=None, format="auto", kernel="auto", csrl_threshold=None,
                 symmetric="no"):
        dt = _dtype_of(A, dtype)
        o = _backend.opts(format, kernel, threads, csrl_threshold, symmetric=symmetric)
        indptr, indices, data, self.copied = csr_arrays(A, dt, np.int32)
        self._init(_backend.core(dt).local_create(A.shape[0], A.shape[1], indptr, indices, data, o), dt)

    def _init(self, c, dtype):
        self._c = c
        self.dtype = np.dtype(dtype)
        self.shape = c.shape
        _backend.warn_binding(c.info()["threads"])

    @classmethod
    def read(cls, path, threads=None, dtype=np.float64, format="auto", kernel="auto", csrl_threshold=None,
             read_threads=0, symmetric="no"):
        """Reads a Matrix Market (plain or gzip) or PETSc binary file (told by
        its content) with hspmv_csr_read and prepares it."""
        o = _backend.opts(format, kernel, threads, csrl_threshold, symmetric=symmetric)
        self = cls.__new__(cls)
        self.copied = ()
        self._init(_backend.core(dtype).local_read(path, int(read_threads), o), dtype)
        return self

    ndim = 2

    @property
    def nnz(self):
        return self._c.nnz

    @property
    def info(self):
        """What the library chose: format, kernel set (isa), threads, bytes per product, ..."""
        return self._c.info()

    def __matmul__(self, x):
        return self._c.mul(x)

    def matvec(self, x, out=None):
        """y = A x; x of shape (ncols,) or (ncols, 1); out (optional) receives y."""
        return self._c.mul(x, out)

    def matmat(self, X, out=None):
        """Y = A X for a block X of shape (ncols, k): read the matrix once for
        all k vectors. C order is the row-major layout, Fortran order the
        column-major one; Y has X's order (or out's)."""
        if np.ndim(X) != 2:
            raise ValueError("matmat takes a 2-D block")
        return self._c.mul(X, out)

    def rmatvec(self, x, out=None):
        """y = A^T x (the first call builds a transposed copy)."""
        return self._c.mul(x, out, True)

    def rmatmat(self, X, out=None):
        if np.ndim(X) != 2:
            raise ValueError("rmatmat takes a 2-D block")
        return self._c.mul(X, out, True)

    @property
    def T(self):
        return _Transposed(self)

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator whose products are hspmv's
        (cg, gmres, bicgstab, lsqr, eigsh, ... take it)."""
        return _Operator(self)

    def free(self):
        """Frees the library's matrix now (otherwise when the last reference goes)."""
        self._c.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        try:
            i = self.info
            how = f"{i['format']}, {i['isa']}, {i['threads']} threads"
        except Exception:
            how = "freed"
        return f"<hspmv.Matrix {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, {self.dtype}, {how}>"


class _Operator(spla.LinearOperator):
    def __init__(self, A):
        super().__init__(A.dtype, A.shape)
        self.A = A
        self._mul = A._c.mul

    def _matvec(self, x):
        return self._mul(x)

    def _matmat(self, X):
        return self._mul(X)

    def _rmatvec(self, x):
        return self._mul(x, None, True)

    def _rmatmat(self, X):
        return self._mul(X, None, True)

    def _adjoint(self):
        return _AdjointOp(self.A)


class _AdjointOp(spla.LinearOperator):
    def __init__(self, A):
        super().__init__(A.dtype, A.shape[::-1])
        self.A = A
        self._mul = A._c.mul

    def _matvec(self, x):
        return self._mul(x, None, True)

    def _matmat(self, X):
        return self._mul(X, None, True)

    def _rmatvec(self, x):
        return self._mul(x)

    def _rmatmat(self, X):
        return self._mul(X)

    def _adjoint(self):
        return _Operator(self.A)
