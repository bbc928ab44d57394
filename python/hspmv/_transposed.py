"""_transposed.py — A.T (= A.H: real) of an hspmv.Matrix: products with
HSPMV_TRANSPOSE (the first builds the library's transposed copy), and the
SciPy views of the transpose."""
from ._matrix import _Products


class Transposed(_Products):
    """A^T as a LinearOperator and matrix-like object; T gives A back."""

    def __init__(self, A):
        super().__init__(A.dtype, A.shape[::-1])
        self._A = A
        self._mul = A._c.mul

    def _prod(self, x, out=None):
        y = self._mul(x, out, True)
        return y if y is not NotImplemented else self._A._widened()._c.mul(x, out, True)

    @property
    def T(self):
        return self._A

    @property
    def nnz(self):
        return self._A.nnz

    def tocsr(self, copy=False):
        return self._A.tocsr().T.tocsr(copy=copy)

    def tocsc(self):
        """A SciPy CSC matrix over the arrays of A's CSR (no copy)."""
        return self._A.tocsr().T

    def diagonal(self, k=0):
        return self._A.diagonal(-k)

    def astype(self, dtype, copy=True):
        return self._A.astype(dtype, copy).T

    def __repr__(self):
        return f"<transpose of {self._A!r}>"
