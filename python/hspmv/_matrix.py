"""_matrix.py — hspmv.Matrix: one process's prepared matrix (hspmv_local),
usable where solver code takes a SciPy sparse matrix or a LinearOperator
(it is a scipy.sparse.linalg.LinearOperator): products, transposes, the
diagonal and conversions back to SciPy (docs/python.md has the table)."""
import threading

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from . import _backend
from ._check import check_structure

_INT32_MAX = 2**31 - 1
_COMPLEX = ("hspmv holds real matrices only (float64 or float32), not {dt}: keep a complex matrix "
            "in SciPy (scipy.sparse.csr_matrix), whose products and solvers take complex values")
_ACCEPTED = "a scipy.sparse matrix or array (any format: csr, csc, coo, ...) or an hspmv.Matrix"


def _dtype_of(A, dtype):
    if dtype is not None:
        dt = np.dtype(dtype)
        if dt.kind == "c":
            raise TypeError(_COMPLEX.format(dt=dt))
        return dt
    dt = np.dtype(A.dtype)
    if dt in (np.float64, np.float32):
        return dt
    if dt.kind == "c":
        raise TypeError(_COMPLEX.format(dt=dt))
    return np.dtype(np.float64)


def _sparse_or_raise(A, who):
    if not sp.issparse(A):
        raise TypeError(f"{who} takes {_ACCEPTED}, not {type(A).__name__}; for a dense array a use "
                        f"{who}(scipy.sparse.csr_matrix(a))")
    if np.dtype(A.dtype).kind == "c":
        raise TypeError(_COMPLEX.format(dt=A.dtype))


def canonical_csr(A, canonical=True):
    """A as CSR after its arrays were checked (before SciPy's compiled code
    or the library reads them): itself when it is CSR already (and, if
    canonical, sorted without duplicates), else a converted copy. Returns
    (csr, copied names)."""
    _sparse_or_raise(A, "hspmv")
    check_structure(A)
    if A.format != "csr":
        return A.tocsr(), ["all (converted to CSR)"]
    nnz = int(A.indptr[-1])
    if A.indices.size > nnz or A.data.size > nnz:  # SciPy allows room past the entries
        A = type(A)((A.data[:nnz], A.indices[:nnz], A.indptr), shape=A.shape, copy=False)
    if canonical and not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
        return A, ["all (columns sorted, duplicates summed)"]
    return A, []


def csr_arrays(A, dtype, index_dtype, canonical=True):
    """A's CSR arrays as the library takes them: indptr int64, indices of
    index_dtype, data of dtype, all contiguous; those already so are used
    in place; canonical: columns sorted and duplicates summed (on a copy)
    when they are not (hspmv_local_create wants them so, hspmv_dist_create
    does not). Returns (indptr, indices, data, copied names, the CSR matrix
    they came from)."""
    A, copied = canonical_csr(A, canonical)
    if A.shape[1] > _INT32_MAX:
        raise ValueError(f"{A.shape[1]} columns: hspmv takes at most 2^31-1")

    def take(a, dt, name):
        if a.dtype == dt and a.flags.c_contiguous and a.flags.aligned and a.dtype.isnative:
            return a
        copied.append(name)
        return np.ascontiguousarray(a, dtype=dt)

    return (take(A.indptr, np.dtype(np.int64), "indptr"), take(A.indices, np.dtype(index_dtype), "indices"),
            take(A.data, dtype, "data"), tuple(dict.fromkeys(copied)), A)


def _scipy(B):
    return B.tocsr() if isinstance(B, _Products) else B


class _Products(LinearOperator):
    """What Matrix and its transpose share: the products as SciPy's sparse
    matrices and LinearOperators spell them (A @ x, A.dot(x), A * x,
    matvec, matmat, ...), each one call into the C core. Arithmetic that
    makes another matrix (A * 2, -A, A + B, A @ sparse) is SciPy's, on
    tocsr(): its result is a SciPy matrix, as with a SciPy operand; with a
    LinearOperator it is SciPy's lazy operator (A @ op, A + op)."""

    args = ()  # a LinearOperator's operands (none: the matrix is its own)
    __array_ufunc__ = None  # x @ A, x * A with an ndarray x: NumPy leaves them to __rmatmul__, __rmul__

    def _prod(self, x, out=None):
        raise NotImplementedError

    def _other(self, x, op):
        """A @ x or A * x for what the product refused (x not an array of numbers)."""
        if isinstance(x, LinearOperator):
            return LinearOperator.dot(self, x)
        if np.isscalar(x):
            if op == "@":
                raise ValueError("Scalar operands are not allowed, use '*' instead")
            return self.tocsr() * x
        if sp.issparse(x):
            return self.tocsr() @ x
        return None

    def __matmul__(self, x):
        try:
            return self._prod(x)
        except (TypeError, ValueError):
            y = self._other(x, "@")
            if y is None:
                raise
            return y

    def __mul__(self, x):
        try:
            return self._prod(x)
        except (TypeError, ValueError):
            y = self._other(x, "*")
            if y is None:
                raise
            return y

    dot = __mul__
    __call__ = __mul__

    def __rmatmul__(self, x):
        """x @ A = (A^T x^T)^T for a vector or a block of rows x."""
        if np.isscalar(x):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        if sp.issparse(x):
            return x @ self.tocsr()
        if np.ndim(x) == 2:
            return self.T._prod(np.asarray(x).T).T
        return self.T._prod(x)

    def __rmul__(self, x):
        if np.isscalar(x):
            return x * self.tocsr()
        return self.__rmatmul__(x)

    def __neg__(self):
        return -self.tocsr()

    def __add__(self, B):
        if isinstance(B, LinearOperator) and not isinstance(B, _Products):
            return LinearOperator.__add__(self, B)
        return self.tocsr() + _scipy(B)

    def __radd__(self, B):
        return _scipy(B) + self.tocsr()

    def __sub__(self, B):
        if isinstance(B, LinearOperator) and not isinstance(B, _Products):
            return LinearOperator.__add__(self, -B)
        return self.tocsr() - _scipy(B)

    def __rsub__(self, B):
        return _scipy(B) - self.tocsr()

    def __truediv__(self, c):
        return self.tocsr() / c

    def matvec(self, x, out=None):
        """y = A x; x of shape (ncols,) or (ncols, 1); out (optional) receives y."""
        return self._prod(x, out)

    def matmat(self, X, out=None):
        """Y = A X for a block X of shape (ncols, k): read the matrix once for
        all k vectors. C order is the row-major layout, Fortran order the
        column-major one; Y has X's order (or out's)."""
        if np.ndim(X) != 2:
            raise ValueError("matmat takes a 2-D block")
        return self._prod(X, out)

    def rmatvec(self, x, out=None):
        """y = A^T x (the first transposed product builds a transposed copy)."""
        return self.T._prod(x, out)

    def rmatmat(self, X, out=None):
        if np.ndim(X) != 2:
            raise ValueError("rmatmat takes a 2-D block")
        return self.T._prod(X, out)

    # what LinearOperator's own machinery calls (sums, products, powers of operators)
    def _matvec(self, x):
        return self._prod(x)

    def _matmat(self, X):
        return self._prod(X)

    def _rmatvec(self, x):
        return self.T._prod(x)

    def _rmatmat(self, X):
        return self.T._prod(X)

    def _transpose(self):
        return self.T

    _adjoint = _transpose  # real: A^H = A^T

    def adjoint(self):
        return self.T

    def transpose(self):
        return self.T

    @property
    def H(self):
        return self.T

    def getH(self):
        return self.T

    def conj(self):
        return self

    conjugate = conj

    def __len__(self):
        raise TypeError(f"{type(self).__name__} length is ambiguous; use nnz or shape[0]")

    def aslinearoperator(self):
        """The matrix itself: it is a scipy.sparse.linalg.LinearOperator
        (cg, gmres, bicgstab, lsqr, eigsh, ... take it), as
        scipy.sparse.linalg.aslinearoperator(A) returns it."""
        return self

    def toarray(self):
        """The matrix as a dense ndarray (nrows x ncols of its dtype)."""
        return self.tocsr().toarray()

    def todense(self):
        return np.asmatrix(self.toarray())

    def tocsc(self):
        return self.tocsr().tocsc()

    def tocoo(self):
        return self.tocsr().tocoo()

    def getnnz(self):
        return self.nnz


class Matrix(_Products):
    """A sparse matrix prepared for repeated products on one process.

    Matrix(A, threads=None, dtype=None, format="auto", kernel="auto", csrl_threshold=None, symmetric="no",
           reorder="none")
    A is any scipy.sparse matrix or array (CSR is used in place when its
    arrays allow, see docs/python.md) or another hspmv.Matrix; dtype float64
    (libhspmv) or float32 (libhspmv_single), by default A's own when it is
    one of them. threads: OpenMP threads of each product (None or 0:
    OMP_NUM_THREADS / all). symmetric: "no" (default) keeps both triangles;
    "auto" keeps one triangle of a symmetric or skew-symmetric A (format
    "auto"; info["symmetric"] says 1 or -1); "yes" always (an error when A
    is neither); reorder: "none" (default), "rcm", "nd" or "auto" renumbers
    rows and columns for locality inside the library (A.reorder says what
    was done; products still take and give vectors in A's own order);
    docs/python.md. The matrix keeps the CSR arrays it was made
    from (the caller's, when used in place) for tocsr, toarray, diagonal,
    astype and the float64 products of a float32 matrix."""

    def __init__(self, A, threads=None, dtype=None, format="auto", kernel="auto", csrl_threshold=None,
                 symmetric="no", reorder="none"):
        if isinstance(A, Matrix):
            A = A.tocsr()
        _sparse_or_raise(A, "hspmv.Matrix")
        dt = _dtype_of(A, dtype)
        o = _backend.opts(format, kernel, threads, csrl_threshold, symmetric=symmetric, reorder=reorder)
        indptr, indices, data, self.copied, csr = csr_arrays(A, dt, np.int32)
        c = _backend.core(dt).local_create(A.shape[0], A.shape[1], indptr, indices, data, o)
        # the CSR the library was given, with SciPy's own index arrays (their dtypes agree)
        self._csr = csr if csr.dtype == dt else type(csr)((data, csr.indices, csr.indptr), shape=csr.shape,
                                                          copy=False)
        self._opts = dict(threads=threads, format=format, kernel=kernel, csrl_threshold=csrl_threshold,
                          symmetric=symmetric, reorder=reorder)
        self._init(c, dt)

    def _init(self, c, dtype):
        super().__init__(dtype, c.shape)
        self._c = c
        self._mul = c.mul
        self._wide = None  # the float64 copy of a float32 matrix, made by its first float64 product
        self._lock = threading.Lock()
        self._T = None
        _backend.warn_binding(c.info()["threads"])

    @classmethod
    def read(cls, path, threads=None, dtype=np.float64, format="auto", kernel="auto", csrl_threshold=None,
             read_threads=0, symmetric="no", reorder="none"):
        """Reads a Matrix Market (plain or gzip) or PETSc binary file (told by
        its content) with hspmv_csr_read and prepares it; the file's CSR
        stays with the matrix (as hspmv.read_csr gives it)."""
        from . import read_csr

        _backend.opts(format, kernel, threads, csrl_threshold, symmetric=symmetric, reorder=reorder)  # refused before the read
        return cls(read_csr(path, dtype, read_threads), threads, dtype, format, kernel, csrl_threshold, symmetric,
                   reorder)

    @property
    def nnz(self):
        return self._c.nnz

    @property
    def info(self):
        """What the library chose: format, kernel set (isa), threads, bytes per product, the
        reordering (reorder, bandwidth_before/after, local_before/after, reorder_s), ..."""
        return self._c.info()

    @property
    def reorder(self):
        """The order the library works in: "none" (A's own; also where reorder="auto"
        kept it), "rcm" or "nd". What was asked is info["reorder_asked"]."""
        return self._c.info()["reorder"]

    def _prod(self, x, out=None):
        y = self._mul(x, out)
        return y if y is not NotImplemented else self._widened()._c.mul(x, out)

    def __matmul__(self, x):  # the fast path of A @ x, A.dot(x), A * x: one C call
        try:
            y = self._mul(x)
            return y if y is not NotImplemented else self._widened()._c.mul(x)
        except (TypeError, ValueError):
            return _Products.__matmul__(self, x)

    def __mul__(self, x):
        try:
            y = self._mul(x)
            return y if y is not NotImplemented else self._widened()._c.mul(x)
        except (TypeError, ValueError):
            return _Products.__mul__(self, x)

    dot = __mul__
    __call__ = __mul__

    def _widened(self):
        """The float64 matrix that computes a float32 matrix's products with
        float64 operands (NumPy's promotion: float32 @ float64 is float64),
        made from the same CSR on the first such product (its values are
        exactly the float32 ones)."""
        with self._lock:
            if self._wide is None:
                self._check_alive()
                self._wide = Matrix(self._csr, dtype=np.float64, **self._opts)
            return self._wide

    def _check_alive(self):
        if self._csr is None:
            self._c.info()  # raises hspmv.Error: the matrix was freed

    @property
    def T(self):
        """A^T (products with HSPMV_TRANSPOSE: the first builds the transposed copy)."""
        t = self._T
        if t is None:
            from ._transposed import Transposed

            t = self._T = Transposed(self)
        return t

    def tocsr(self, copy=False):
        """A SciPy CSR matrix over the arrays the matrix was made from (the
        caller's when they were used in place); copy=True: its own arrays."""
        self._check_alive()
        c = self._csr
        B = type(c)((c.data, c.indices, c.indptr), shape=c.shape, copy=False)
        return B.copy() if copy else B

    def diagonal(self, k=0):
        """The k-th diagonal (SciPy's csr diagonal on the kept arrays: one
        pass over the rows, nothing of the matrix copied)."""
        self._check_alive()
        return self._csr.diagonal(k)

    def astype(self, dtype, copy=True):
        """The matrix in another precision (float64 or float32; complex is a
        TypeError): a new Matrix with the same options; copy=False returns
        this one when dtype is its own."""
        dt = np.dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        self._check_alive()
        return Matrix(self._csr, dtype=dt, **self._opts)

    def copy(self):
        return self.astype(self.dtype)

    def free(self):
        """Frees the library's matrix now (otherwise when the last reference
        goes); a product running in another thread finishes first."""
        self._c.free()
        wide, self._wide, self._csr = self._wide, None, None
        if wide is not None:
            wide.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        try:
            i = self.info
            how = f"{i['format']}, {i['isa']}, {i['threads']} threads"
            if i["reorder_asked"] != "none":
                how += (f", reorder {i['reorder']} (asked {i['reorder_asked']}, bandwidth {i['bandwidth_before']} -> "
                        f"{i['bandwidth_after']})")
        except Exception:
            how = "freed"
        return f"<hspmv.Matrix {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, {self.dtype}, {how}>"
