"""test_scipy_protocol.py — hspmv.Matrix where a SciPy sparse matrix was:
each operation of docs/python.md's table against SciPy's own result, the
result dtypes by NumPy's promotion (a float32 matrix times float64 computed
in float64), what is shared and not copied, complex refused naming SciPy."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspmv
from conftest import within_bound

pytestmark = [pytest.mark.filterwarnings("ignore::scipy.sparse.SparseEfficiencyWarning"),
              pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")]  # setdiag below, todense


@pytest.fixture
def A(rng):
    B = sp.random(60, 45, density=0.15, random_state=5, format="csr")
    B.setdiag(rng.uniform(1, 2, 45))
    return B.tocsr()


def test_products_spelled_every_way(A, rng):
    M = hspmv.Matrix(A)
    x = rng.uniform(-1, 1, A.shape[1])
    ref = A @ x
    for y in (M @ x, M.dot(x), M * x, M(x), M.matvec(x), spla.aslinearoperator(M).matvec(x)):
        assert y.shape == ref.shape and within_bound(y, A, x, np.float64)[0]
    X = rng.uniform(-1, 1, (A.shape[1], 4))
    for Y in (M @ X, M.dot(X), M * X, M.matmat(X), M @ np.asfortranarray(X)):
        assert Y.shape == (A.shape[0], 4) and np.allclose(Y, A @ X, rtol=1e-13, atol=1e-13)
    assert (M @ x[:, None]).shape == (A.shape[0], 1)
    v = rng.uniform(-1, 1, A.shape[0])
    for z in (M.T @ v, M.H @ v, M.adjoint() @ v, M.transpose().dot(v), M.rmatvec(v), v @ M):
        assert np.allclose(z, A.T @ v, rtol=1e-13, atol=1e-13)
    assert np.allclose(M.rmatmat(v[:, None]), (A.T @ v)[:, None])
    assert np.allclose(np.vstack([v, v]) @ M, np.vstack([v, v]) @ A)
    assert M.T.T is M and M.T.shape == A.shape[::-1] and M.T.dtype == M.dtype


def test_the_attributes_and_refusals_of_a_sparse_matrix(A):
    M = hspmv.Matrix(A)
    assert M.shape == A.shape and M.ndim == 2 and M.nnz == A.nnz and M.getnnz() == A.nnz
    assert M.dtype == np.float64 and "hspmv.Matrix 60x45" in repr(M)
    with pytest.raises(TypeError, match="length is ambiguous"):
        len(M)
    assert spla.aslinearoperator(M) is M and M.aslinearoperator() is M
    assert isinstance(M, spla.LinearOperator)
    with pytest.raises(ValueError):
        M @ np.ones(A.shape[1] + 1)
    with pytest.raises(ValueError, match="Scalar"):
        M @ 2.0


def test_conversions_back_to_scipy_share_the_arrays(A):
    M = hspmv.Matrix(A)  # float64 data, int32 indices: the caller's arrays are the ones kept
    C = M.tocsr()
    assert isinstance(C, sp.csr_matrix) and np.shares_memory(C.data, A.data)
    assert np.shares_memory(C.indices, A.indices) and np.shares_memory(C.indptr, A.indptr)
    assert not np.shares_memory(M.tocsr(copy=True).data, A.data)
    assert np.array_equal(M.toarray(), A.toarray()) and M.toarray().dtype == np.float64
    assert abs(M.tocsc() - A).max() == 0 and abs(M.tocoo() - A).max() == 0
    assert np.array_equal(M.todense(), A.todense())
    assert np.shares_memory(M.T.tocsc().data, A.data) and abs(M.T.tocsr() - A.T).max() == 0
    F = hspmv.Matrix(A.astype(np.float32))
    assert F.tocsr().dtype == np.float32


def test_diagonal_reads_the_kept_arrays_without_a_copy(A, monkeypatch):
    M = hspmv.Matrix(A)
    for k in (0, 3, -7):
        assert np.array_equal(M.diagonal(k), A.diagonal(k)) and np.array_equal(M.T.diagonal(k), A.T.diagonal(k))
    # SciPy's csr diagonal walks the rows of the arrays it is given: no tocsr(copy), no toarray
    calls = []
    for name in ("copy", "toarray", "tocoo", "tocsc"):
        monkeypatch.setattr(sp.csr_matrix, name, lambda self, *a, _n=name, **k: calls.append(_n))
    d = M.diagonal()
    assert not calls and d.shape == (45,) and np.array_equal(d, A.diagonal())


def test_float32_matrix_times_float64_follows_numpy(A, rng):
    A32 = A.astype(np.float32)
    M = hspmv.Matrix(A32)
    x = rng.uniform(-1, 1, A.shape[1])
    assert M._wide is None
    y = M @ x
    # NumPy: float32 @ float64 is float64; computed in float64 on the float32 values
    # (exactly representable), so to float64's bound, far inside float32's
    assert y.dtype == np.result_type(np.float32, np.float64) == np.float64
    assert within_bound(y, A32.astype(np.float64), x, np.float64)[0]
    assert np.abs(y - A32.astype(np.float64) @ x).max() <= 1e-14
    assert M._wide is not None and M._wide.dtype == np.float64  # the float64 copy, made once
    for xt, want in ((x.astype(np.float32), np.float32), (np.arange(45, dtype=np.int16), np.float32),
                     (np.arange(45), np.float64), (list(x), np.float64)):
        got = M @ xt
        assert got.dtype == np.result_type(np.float32, np.asarray(xt).dtype) == want
    assert (M.T @ rng.uniform(-1, 1, 60)).dtype == np.float64
    assert M.dot(x).dtype == (M * x).dtype == M.matvec(x).dtype == np.float64
    out = np.empty(60)
    assert M.matvec(x, out=out) is out and np.array_equal(out, y)
    # float64 matrix with float32 x: float64, x converted exactly
    M64 = hspmv.Matrix(A)
    x32 = x.astype(np.float32)
    assert (M64 @ x32).dtype == np.float64 and np.array_equal(M64 @ x32, M64 @ x32.astype(np.float64))


def test_astype_and_copy(A, rng):
    M = hspmv.Matrix(A, threads=1, format="csr")
    F = M.astype(np.float32)
    assert F.dtype == np.float32 and F.info["format"] == "csr" and F.info["threads"] == 1
    x = rng.uniform(-1, 1, A.shape[1]).astype(np.float32)
    assert within_bound(F @ x, A.astype(np.float32), x, np.float32)[0]
    assert M.astype(np.float64, copy=False) is M and M.copy() is not M
    assert M.T.astype(np.float32).T.dtype == np.float32
    assert hspmv.Matrix(M).nnz == M.nnz
    with pytest.raises(TypeError, match="real matrices only.*SciPy"):
        M.astype(np.complex128)


def test_arithmetic_that_makes_a_matrix_is_scipys(A, rng):
    M = hspmv.Matrix(A)
    x = rng.uniform(-1, 1, A.shape[1])
    for got, want in ((M * 2, A * 2), (2 * M, 2 * A), (-M, -A), (M + A, A + A), (M - M, A - A), (M / 4, A / 4)):
        assert sp.issparse(got) and abs(got - want).max() == 0
    assert np.allclose(x - M.T @ (M @ x), x - A.T @ (A @ x))
    P = M.T @ spla.aslinearoperator(A)  # with an operator: SciPy's lazy product
    assert isinstance(P, spla.LinearOperator) and np.allclose(P @ x, A.T @ (A @ x))


def test_complex_refused_naming_scipy(A):
    for bad in (A.astype(np.complex128), A.astype(np.complex64)):
        with pytest.raises(TypeError, match=r"real matrices only .*SciPy"):
            hspmv.Matrix(bad)
    with pytest.raises(TypeError, match="SciPy"):
        hspmv.Matrix(A, dtype=np.complex128)
    with pytest.raises(TypeError):
        hspmv.Matrix(A) @ (np.ones(A.shape[1]) + 1j)


def test_free_drops_what_is_kept(A):
    M = hspmv.Matrix(A.astype(np.float32))
    M @ np.ones(A.shape[1])  # makes the float64 copy
    M.free()
    for op in (lambda: M @ np.ones(A.shape[1]), M.diagonal, M.tocsr, lambda: M.astype(np.float64)):
        with pytest.raises(hspmv.Error, match="freed"):
            op()
