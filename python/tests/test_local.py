"""test_local.py — hspmv.Matrix against SciPy: products on the bundled and
shared matrices in both precisions and both index types, blocks in both
layouts, the zero-copy and conversion rules, bad input, errors, the
LinearOperator under scipy.sparse.linalg, the threads warning."""
import os
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspmv
from conftest import BUNDLED, COMPLEX, SHARED_REAL, ROOT, matrix_ids, within_bound

DTYPES = [np.float64, np.float32]
LAP = os.path.join(ROOT, "matrices", "lap3d_12.mtx")


def read(path, dtype=np.float64):
    return hspmv.read_csr(path, dtype=dtype)


@pytest.mark.parametrize("path", COMPLEX, ids=matrix_ids(COMPLEX))
def test_complex_files_are_refused(path):
    assert len(COMPLEX) == 2
    with pytest.raises(hspmv.Error) as e:
        hspmv.read_csr(path)
    assert e.value.code == hspmv.ERR_UNSUPPORTED


def transpose_or_skip(fn):
    try:
        return fn()
    except hspmv.Error as e:
        if e.code == hspmv.ERR_UNSUPPORTED:
            pytest.skip(f"transposed product not in this library yet: {e}")
        raise


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("path", BUNDLED + SHARED_REAL, ids=matrix_ids(BUNDLED + SHARED_REAL))
def test_product_matches_scipy(path, dtype, rng):
    A = read(path, dtype)
    M = hspmv.Matrix(A, threads=2)
    assert M.dtype == dtype and M.shape == A.shape and M.nnz == A.nnz
    x = rng.uniform(-1, 1, A.shape[1]).astype(dtype)
    y = M @ x
    assert y.dtype == dtype and y.shape == (A.shape[0],)
    ok, ratio = within_bound(y, A, x, dtype)
    assert ok, f"error {ratio:.2f} x the bound"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_index_types_and_what_is_copied(dtype, index, rng):
    A = scipy.io.mmread(LAP).tocsr().astype(dtype)
    A.indptr, A.indices = A.indptr.astype(index), A.indices.astype(index)
    M = hspmv.Matrix(A)
    # the library's layout is int64 rowptr, int32 colind: the other one is converted
    assert M.copied == (("indptr",) if index == np.int32 else ("indices",))
    x = rng.uniform(-1, 1, A.shape[1]).astype(dtype)
    assert within_bound(M @ x, A, x, dtype)[0]


def test_nothing_copied_when_the_layout_matches():
    A = scipy.io.mmread(LAP).tocsr()
    A.indptr = A.indptr.astype(np.int64)
    assert hspmv.Matrix(A).copied == ()


def test_non_canonical_and_other_formats(rng):
    A = scipy.io.mmread(LAP).tocsr()
    coo = A.tocoo()
    perm = rng.permutation(coo.nnz)  # unsorted columns, as SciPy allows
    U = sp.csr_matrix((coo.data[perm], (coo.row[perm], coo.col[perm])), shape=A.shape)
    U.has_sorted_indices = False
    x = rng.uniform(-1, 1, A.shape[1])
    for B in (U, coo, A.tocsc(), sp.csr_array(A)):
        M = hspmv.Matrix(B)
        assert M.copied and M.copied[0].startswith("all") or isinstance(B, sp.csr_array)
        assert within_bound(M @ x, A, x, np.float64)[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_blocks_both_layouts_and_out(dtype, rng):
    A = read(os.path.join(ROOT, "matrices", "random_3000_k8.mtx"), dtype)
    M = hspmv.Matrix(A, threads=2)
    X = rng.uniform(-1, 1, (A.shape[1], 4)).astype(dtype)
    for Xo in (X, np.asfortranarray(X)):
        Y = M.matmat(Xo)
        assert Y.flags.f_contiguous == (Xo is not X)
        for j in range(4):
            assert within_bound(Y[:, j], A, X[:, j], dtype)[0]
    out = np.empty((A.shape[0], 4), dtype=dtype, order="F")
    assert M.matmat(X, out=out) is out  # C operand, Fortran out: the operand follows out's layout
    assert within_bound(out[:, 2], A, X[:, 2], dtype)[0]
    y = np.empty(A.shape[0], dtype=dtype)
    assert M.matvec(X[:, 1], out=y) is y
    assert within_bound(y, A, X[:, 1], dtype)[0]
    assert (M @ X[:, :1]).shape == (A.shape[0], 1)


def test_inputs_copied_or_refused(rng):
    A = scipy.io.mmread(LAP).tocsr()
    M = hspmv.Matrix(A)
    n = A.shape[1]
    big = rng.uniform(-1, 1, 2 * n)
    strided = big[::2]  # not contiguous: copied
    assert within_bound(M @ strided, A, strided, np.float64)[0]
    x32 = strided.astype(np.float32)  # another float type: converted
    assert within_bound(M @ x32, A, x32.astype(np.float64), np.float64)[0]
    ints = np.arange(n) % 7
    assert within_bound(M @ ints, A, ints, np.float64)[0]
    assert within_bound(M @ list(ints), A, ints, np.float64)[0]
    with pytest.raises(TypeError):
        M @ (strided + 1j)  # complex: refused
    with pytest.raises(ValueError):
        M @ strided[:-1]  # wrong length
    with pytest.raises(ValueError):
        M @ np.zeros((n, 2, 2))
    with pytest.raises(TypeError):
        M.matvec(strided, out=np.empty(A.shape[0], dtype=np.float32))  # out is never converted
    with pytest.raises(ValueError):
        M.matvec(strided, out=np.empty(2 * A.shape[0])[::2])  # nor copied
    with pytest.raises(ValueError):
        M.matvec(strided, out=np.empty(A.shape[0] + 1))
    ro = np.empty(A.shape[0])
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        M.matvec(strided, out=ro)
    same = np.ones(n)
    with pytest.raises(ValueError):
        M.matvec(same, out=same)  # out overlapping x
    with pytest.raises(TypeError):
        hspmv.Matrix(A.astype(np.complex128))
    with pytest.raises(TypeError):
        hspmv.Matrix(A.toarray())
    with pytest.raises(ValueError):
        hspmv.Matrix(A, format="nosuch")


def test_transposed_products(rng):
    A = read(os.path.join(ROOT, "matrices", "powerlaw_2000_k6.mtx"))
    M = hspmv.Matrix(A, threads=2)
    x = rng.uniform(-1, 1, A.shape[0])
    y = transpose_or_skip(lambda: M.T @ x)
    assert within_bound(y, A.T.tocsr(), x, np.float64)[0]
    assert within_bound(M.rmatvec(x), A.T.tocsr(), x, np.float64)[0]
    X = np.asfortranarray(rng.uniform(-1, 1, (A.shape[0], 3)))
    Y = M.rmatmat(X)
    assert within_bound(Y[:, 2], A.T.tocsr(), X[:, 2], np.float64)[0]


def test_read_files_and_errors(tmp_path):
    M = hspmv.Matrix.read(LAP, threads=1)
    A = scipy.io.mmread(LAP).tocsr()
    assert M.shape == A.shape and M.nnz == A.nnz
    assert set(M.info) >= {"format", "isa", "threads", "bytes"} and M.info["threads"] == 1
    assert abs(hspmv.read_csr(LAP) - A).max() == 0
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n")
    with pytest.raises(hspmv.Error) as e:
        hspmv.Matrix.read(str(bad))
    assert e.value.code == hspmv.ERR_FORMAT and "bad.mtx" in str(e.value) and "4" in str(e.value)
    with pytest.raises(hspmv.Error) as e:
        hspmv.Matrix.read(str(tmp_path / "missing.mtx"))
    assert e.value.name == "IO"
    M.free()
    with pytest.raises(hspmv.Error):
        M @ np.ones(A.shape[1])


def test_petsc_file(tmp_path, rng):
    conv = os.path.join(ROOT, "convert")
    if not os.access(conv, os.X_OK):
        pytest.skip("no ./convert (make programs) to write a PETSc file")
    out = tmp_path / "m.petsc"
    assert os.system(f"{conv} {LAP} {out} > /dev/null") == 0
    M = hspmv.Matrix.read(str(out))
    A = scipy.io.mmread(LAP).tocsr()
    x = rng.uniform(-1, 1, A.shape[1])
    assert within_bound(M @ x, A, x, np.float64)[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_scipy_solvers_on_the_operator(dtype):
    A = scipy.io.mmread(os.path.join(ROOT, "matrices", "lap3d_12_sym.mtx")).tocsr()
    A = (A + A.T - sp.diags(A.diagonal())).tocsr().astype(dtype)  # the full symmetric matrix
    op = hspmv.Matrix(A, threads=2).aslinearoperator()
    b = (A @ np.ones(A.shape[0], dtype=dtype)).astype(dtype)
    tol = 1e-10 if dtype == np.float64 else 1e-5
    x_h, info_h = spla.cg(op, b, tol=tol, atol=0, maxiter=500)
    x_s, info_s = spla.cg(A, b, tol=tol, atol=0, maxiter=500)
    assert info_h == 0 and info_s == 0
    assert np.abs(x_h - 1).max() < (1e-6 if dtype == np.float64 else 1e-2)
    x_g, info_g = spla.gmres(op, b, tol=tol, atol=0, restart=50, maxiter=50)
    assert info_g == 0
    vals = spla.eigsh(op, k=2, which="LM", return_eigenvectors=False, tol=1e-6)
    ref = spla.eigsh(A.astype(np.float64), k=2, which="LM", return_eigenvectors=False, tol=1e-6)
    assert np.allclose(np.sort(vals), np.sort(ref), rtol=1e-3)


def test_lsqr_needs_the_transpose(rng):
    A = read(os.path.join(ROOT, "matrices", "banded_2000_w16.mtx"))
    op = hspmv.Matrix(A).aslinearoperator()
    b = A @ np.ones(A.shape[1])
    x = transpose_or_skip(lambda: spla.lsqr(op, b, atol=1e-12, btol=1e-12, iter_lim=2000)[0])
    assert np.abs(A @ x - b).max() <= 1e-6 * np.abs(b).max()


def test_threads_warning():
    A = scipy.io.mmread(LAP).tocsr()
    cores = len(os.sched_getaffinity(0))
    with pytest.warns(RuntimeWarning, match="share cores"):
        hspmv.Matrix(A, threads=cores + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hspmv.Matrix(A, threads=1)
    with pytest.raises(hspmv.Error) as e:  # beyond what the library allows
        hspmv.Matrix(A, threads=100000)
    assert e.value.code == hspmv.ERR_ARG


def test_both_precisions_side_by_side(rng):
    A = scipy.io.mmread(LAP).tocsr()
    x = rng.uniform(-1, 1, A.shape[1])
    y64 = hspmv.Matrix(A) @ x
    y32 = hspmv.Matrix(A, dtype=np.float32) @ x.astype(np.float32)
    assert y64.dtype == np.float64 and y32.dtype == np.float32
    assert hspmv.library_version(np.float64) == hspmv.library_version(np.float32)
    assert np.abs(y64 - y32).max() <= 1e-4 * np.abs(y64).max()


@pytest.mark.parametrize("dtype", DTYPES)
def test_symmetric_one_triangle(dtype, rng):
    """symmetric='auto' keeps one triangle of a symmetric or skew-symmetric
    matrix and the products match SciPy's; 'no' keeps both; 'yes' on a
    matrix that is neither is an error."""
    n = 3000  # a band of 20 below the diagonal: one triangle pays (docs/formats.md)
    L = sp.diags([rng.uniform(-1, 1, n - d) for d in range(1, 21)], [-d for d in range(1, 21)])
    L = (L + sp.diags(rng.uniform(1, 2, n))).tocsr()
    S = (L + sp.tril(L, -1).T).tocsr().astype(dtype)
    K = (sp.tril(L, -1) - sp.tril(L, -1).T).tocsr().astype(dtype)
    x = rng.uniform(-1, 1, 3000).astype(dtype)
    X = rng.uniform(-1, 1, (3000, 3)).astype(dtype)
    for A, sign in ((S, 1), (K, -1)):
        M = hspmv.Matrix(A, threads=2, symmetric="auto")
        assert M.info["symmetric"] == sign
        assert within_bound(M @ x, A, x, dtype)[0]
        Y = M.matmat(X)
        for j in range(3):
            assert within_bound(Y[:, j], A, X[:, j], dtype)[0]
        assert within_bound(M.rmatvec(x), A.T.tocsr(), x, dtype)[0]
        assert hspmv.Matrix(A).info["symmetric"] == 0
    G = sp.random(300, 300, density=0.05, random_state=6, format="csr").astype(dtype)
    assert hspmv.Matrix(G, symmetric="auto").info["symmetric"] == 0
    with pytest.raises(hspmv.Error):
        hspmv.Matrix(G, symmetric="yes")
    with pytest.raises(ValueError):
        hspmv.Matrix(S, symmetric="maybe")
