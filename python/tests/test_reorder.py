"""test_reorder.py — hspmv.Matrix(A, reorder=...): on shuffled 2-D and 3-D
Laplacians the products in the caller's order (A @ x, A.T @ x, A @ X)
against SciPy's to the rounding bound, what was done (A.reorder, the
bandwidths), bad values refused, and CG through SciPy on a reordered matrix
giving the unreordered x."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspmv
from conftest import within_bound

REORDERS = ["none", "rcm", "nd", "auto"]


def laplacian(n, dim):
    """The 5-point (dim 2) or 7-point (dim 3) Laplacian on an n^dim grid, in grid order."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = sp.identity(n)
    if dim == 2:
        return (sp.kron(eye, T) + sp.kron(T, eye)).tocsr()
    return (sp.kron(sp.kron(eye, eye), T) + sp.kron(sp.kron(eye, T), eye) + sp.kron(sp.kron(T, eye), eye)).tocsr()


def shuffled(A, seed=11):
    p = np.random.default_rng(seed).permutation(A.shape[0])
    return A[p][:, p].tocsr()


def bandwidth(A):
    C = A.tocoo()
    return int(np.abs(C.row.astype(np.int64) - C.col).max(initial=0))


def make(A, reorder, dtype, **kw):
    try:
        return hspmv.Matrix(A, dtype=dtype, threads=2, reorder=reorder, **kw)
    except hspmv.Error as e:  # a build without METIS refuses nd, as documented
        if reorder == "nd" and e.code == hspmv.ERR_UNSUPPORTED:
            pytest.skip("built without METIS: nd is refused")
        raise


MESHES = {"lap2d": (laplacian(24, 2), 2), "lap3d": (laplacian(9, 3), 3)}


@pytest.mark.parametrize("mesh", list(MESHES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("reorder", REORDERS)
def test_products_in_the_callers_order(mesh, dtype, reorder, rng):
    B = shuffled(MESHES[mesh][0]).astype(dtype)
    M = make(B, reorder, dtype)
    x = rng.uniform(-1, 1, B.shape[1]).astype(dtype)
    ok, ratio = within_bound(M @ x, B, x, dtype)
    assert ok, f"A @ x: error {ratio:.3g} of the bound"
    ok, ratio = within_bound(M.T @ x, B.T, x, dtype)
    assert ok, f"A.T @ x: error {ratio:.3g} of the bound"
    X = rng.uniform(-1, 1, (B.shape[1], 3)).astype(dtype)
    for XX in (X, np.asfortranarray(X)):
        Y = M @ XX
        for j in range(3):
            ok, ratio = within_bound(Y[:, j], B, XX[:, j], dtype)
            assert ok, f"A @ X column {j}: error {ratio:.3g} of the bound"
    YT = M.T @ X
    assert within_bound(YT[:, 0], B.T, X[:, 0], dtype)[0]
    # a float64 operand on a float32 matrix goes through the widened copy, reordered alike
    if dtype == np.float32:
        x64 = x.astype(np.float64)
        assert within_bound(M @ x64, B, x64, np.float32)[0]
    # the wrong order would fail: the same product against the unshuffled matrix is far off
    assert not within_bound(M @ x, MESHES[mesh][0].astype(dtype), x, dtype)[0]


@pytest.mark.parametrize("reorder", REORDERS)
def test_what_was_done_is_visible(reorder):
    B = shuffled(MESHES["lap2d"][0])
    M = make(B, reorder, np.float64)
    i = M.info
    assert i["reorder_asked"] == reorder
    assert M.reorder == i["reorder"] and M.reorder in ("none", "rcm", "nd")
    if reorder == "none":
        assert M.reorder == "none" and "reorder" not in repr(M)
        return
    assert i["bandwidth_before"] == bandwidth(B)
    assert f"reorder {M.reorder}" in repr(M) and f"asked {reorder}" in repr(M)
    if reorder in ("rcm", "nd"):
        assert M.reorder == reorder
    if reorder == "rcm":
        assert i["bandwidth_after"] < i["bandwidth_before"] / 4, i  # 24x24 grid: about 24 against ~570


def test_rcm_narrows_the_bandwidth():
    B = shuffled(MESHES["lap3d"][0])
    M = make(B, "rcm", np.float64)
    assert M.reorder == "rcm"
    assert M.info["bandwidth_before"] == bandwidth(B)
    assert M.info["bandwidth_after"] <= 2 * 9 * 9, M.info  # about one grid plane


@pytest.mark.parametrize("mesh", list(MESHES))
def test_auto_keeps_an_ordered_matrix(mesh):
    A = MESHES[mesh][0]
    M = make(A, "auto", np.float64)
    assert M.reorder == "none" and M.info["reorder_asked"] == "auto"
    assert M.info["bandwidth_after"] == M.info["bandwidth_before"] == bandwidth(A)


@pytest.mark.parametrize("bad", ["RCM", "metis", "", None, 1])
def test_bad_values_are_refused(bad):
    B = MESHES["lap2d"][0]
    with pytest.raises(ValueError, match="reorder must be one of none, rcm, nd, auto"):
        hspmv.Matrix(B, reorder=bad)
    with pytest.raises(ValueError, match="reorder must be one of none, rcm, nd, auto"):
        hspmv.DistMatrix.read("/nonexistent.mtx", reorder=bad)


def test_copies_keep_the_order():
    B = shuffled(MESHES["lap2d"][0])
    M = make(B, "rcm", np.float64)
    for C in (M.astype(np.float32), M.copy()):
        assert C.reorder == "rcm"
    x = np.ones(B.shape[0])
    assert within_bound(M.astype(np.float32) @ x.astype(np.float32), B.astype(np.float32), x, np.float32)[0]


def cg(A, b):
    """SciPy's CG to a relative residual of 1e-12 (rtol from SciPy 1.12 on, tol before)."""
    try:
        return spla.cg(A, b, rtol=1e-12, atol=0.0, maxiter=2000)
    except TypeError:
        return spla.cg(A, b, tol=1e-12, atol=0.0, maxiter=2000)


@pytest.mark.parametrize("reorder", ["rcm", "nd", "auto"])
def test_cg_gives_the_unreordered_x(reorder, rng):
    B = shuffled(MESHES["lap3d"][0])
    b = rng.uniform(-1, 1, B.shape[0])
    x0, info0 = cg(hspmv.Matrix(B, threads=2), b)
    x1, info1 = cg(make(B, reorder, np.float64), b)
    assert info0 == 0 and info1 == 0
    ref = spla.spsolve(B.tocsc(), b)
    assert np.linalg.norm(x1 - x0) <= 1e-8 * np.linalg.norm(x0)
    assert np.linalg.norm(x1 - ref) <= 1e-8 * np.linalg.norm(ref)
