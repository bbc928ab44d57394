"""test_dist.py — hspmv.DistMatrix under MPI (any rank count; tests/python/run.sh
runs it at 1 and 3 ranks): products and solves against SciPy, reading with
each partition and read mode, matrices from each rank's rows in both index
types and precisions, vectors living in the library's memory, errors the
same on every rank. Every check is agreed across ranks before it is
asserted, so that a failure fails every rank instead of hanging the others."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import hspmv
from conftest import ROOT, within_bound

MPI = pytest.importorskip("mpi4py.MPI")
# most tests drop their matrices without free() (kept until the end then);
# test_free_and_the_warning checks the warning and free()
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
comm = MPI.COMM_WORLD
LAP = os.path.join(ROOT, "matrices", "lap3d_12.mtx")
NONSYM = os.path.join(ROOT, "matrices", "fem3d_6.mtx")
RECT_ROWS = 300


def everywhere(ok):
    """ok on every rank (a collective: every rank calls it at the same point)."""
    return comm.allreduce(bool(ok), op=MPI.LAND)


def whole(path, dtype=np.float64):
    return hspmv.read_csr(path, dtype=dtype)  # every rank reads the small file itself


def product_ok(D, A, dtype, seed=7):
    """D @ x against SciPy's A @ x, x given whole on rank 0 and scattered."""
    x = np.random.default_rng(seed).uniform(-1, 1, A.shape[1]).astype(dtype)
    xl = D.scatter(x if comm.rank == 0 else None, "x")
    y = D.gather(D @ xl, "y")
    return everywhere(comm.rank != 0 or within_bound(y, A, x, dtype)[0])


@pytest.mark.parametrize("partition,read", [("nnz", "root"), ("rows", "parallel"), ("metis", "root")])
def test_read_and_multiply(partition, read):
    D = hspmv.DistMatrix.read(LAP, partition=partition, read=read, threads=1)
    A = whole(LAP)
    assert everywhere(D.shape == A.shape and D.nnz == A.nnz and D.info["nranks"] == comm.size)
    assert product_ok(D, A, np.float64)
    rows, cols = D.ranges()
    assert everywhere(rows[-1] == A.shape[0] and D.local_shape[0] == rows[comm.rank + 1] - rows[comm.rank])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_from_each_ranks_rows(dtype, index):
    A = whole(NONSYM, dtype)
    lo = A.shape[0] * comm.rank // comm.size
    hi = A.shape[0] * (comm.rank + 1) // comm.size
    mine = A[lo:hi].tocsr()
    mine.indptr, mine.indices = mine.indptr.astype(index), mine.indices.astype(index)
    D = hspmv.DistMatrix(mine, threads=1)
    # hspmv_dist_create takes 64-bit columns: 32-bit ones are copied
    assert everywhere(D.copied == (("indptr", "indices") if index == np.int32 else ()))
    assert everywhere(D.dtype == dtype and D.local_shape[0] == hi - lo)
    assert product_ok(D, A, dtype)


def test_float32_read_and_unsorted_rows():
    D = hspmv.DistMatrix.read(NONSYM, dtype=np.float32, threads=1, read="parallel")
    A = whole(NONSYM, np.float32)
    assert everywhere(D.dtype == np.float32)
    assert product_ok(D, A, np.float32)
    # rows whose columns are unsorted and split into duplicates: hspmv_dist_create sums them
    lo, hi = A.shape[0] * comm.rank // comm.size, A.shape[0] * (comm.rank + 1) // comm.size
    mine = A[lo:hi].astype(np.float64).tocoo()
    r = np.concatenate([mine.row, mine.row])[::-1]
    c = np.concatenate([mine.col, mine.col])[::-1]
    v = np.concatenate([mine.data * 0.25, mine.data * 0.75])[::-1]
    U = sp.csr_matrix((hi - lo, A.shape[1]))
    U.indptr = np.searchsorted(np.sort(r), np.arange(hi - lo + 1)).astype(np.int64)
    order = np.argsort(r, kind="stable")
    U.indices, U.data = c[order].astype(np.int64), v[order]
    assert not U.has_sorted_indices
    D2 = hspmv.DistMatrix(U, threads=1)
    assert everywhere(D2.copied == () and D2.nnz == A.nnz)
    assert product_ok(D2, A.astype(np.float64), np.float64)


def test_rectangular_rows():
    A = sp.random(RECT_ROWS, 200, density=0.05, format="csr", random_state=3)
    lo, hi = RECT_ROWS * comm.rank // comm.size, RECT_ROWS * (comm.rank + 1) // comm.size
    D = hspmv.DistMatrix(A[lo:hi], threads=1)
    assert everywhere(D.shape == A.shape)
    assert product_ok(D, A, np.float64)


def test_vectors_are_the_librarys_memory():
    D = hspmv.DistMatrix.read(LAP, threads=1)
    x = D.vector("x")
    y = D.vector("y")
    X = D.vector("x", k=3)
    ok = x.shape == (D.local_shape[1],) and X.shape == (D.local_shape[1], 3) and not x.any()
    ok = ok and x.flags.writeable and x.flags.c_contiguous and x.dtype == np.float64
    x[:] = 1.0
    D.matvec(x, out=y)  # y = A*1 = the row sums
    A = whole(LAP)
    yg = D.gather(y, "y")
    ok = ok and (comm.rank != 0 or np.allclose(yg, A @ np.ones(A.shape[1])))
    y2 = D @ x  # a new library vector
    ok = ok and np.array_equal(y2, y)
    assert everywhere(ok)


def test_matrix_freed_while_vectors_live():
    D = hspmv.DistMatrix.read(LAP, threads=1)
    x = D.vector("x")
    y = D @ x
    del D  # the vectors keep it alive
    x[:] = 2.0
    ok = float(x.sum()) == 2.0 * x.size and not y.any()
    D = hspmv.DistMatrix.read(LAP, threads=1)
    v = D.vector("x")
    D.free()  # collective destroy with a vector alive: the vector stays usable
    v[:] = 3.0
    ok = ok and float(v.sum()) == 3.0 * v.size
    with pytest.raises(hspmv.Error):
        D @ v
    del v, x, y
    assert everywhere(ok)


@pytest.mark.filterwarnings("default::ResourceWarning")
def test_free_and_the_warning():
    import gc
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with hspmv.DistMatrix.read(LAP, threads=1) as D:
            x = D.vector("x")
        D = hspmv.DistMatrix.read(LAP, threads=1)
        D.free()
        del D
        gc.collect()
        clean = not [m for m in w if issubclass(m.category, ResourceWarning)]
        D = hspmv.DistMatrix.read(LAP, threads=1)
        del D  # dropped without free(): a warning, no collective call
        gc.collect()
        warned = [m for m in w if issubclass(m.category, ResourceWarning)]
    x[:] = 1.0  # a vector of a freed matrix stays usable
    assert everywhere(clean and len(warned) == 1 and "free()" in str(warned[0].message) and x.sum() == x.size)


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_solvers_against_scipy(method):
    path = LAP if method == "cg" else NONSYM
    A = whole(path)
    D = hspmv.DistMatrix.read(path, threads=1)
    xs = np.random.default_rng(5).uniform(-1, 1, A.shape[1])
    b = D.scatter(A @ xs if comm.rank == 0 else None, "y")
    solver = hspmv.cg if method == "cg" else hspmv.bicgstab
    x, res = solver(D, b, tol=1e-10, maxit=2000)
    xg = D.gather(x, "y")
    ok = res.iterations > 0 and res.relres_true <= 1e-10
    ok = ok and (comm.rank != 0 or np.abs(xg - xs).max() < 1e-6)
    iters = comm.allgather(res.iterations)
    assert everywhere(ok and len(set(iters)) == 1)


def test_solver_errors_agree():
    D = hspmv.DistMatrix.read(LAP, threads=1)
    b = D.vector("y")
    b[:] = 1.0
    with pytest.raises(hspmv.Error) as e:
        hspmv.cg(D, b, tol=1e-12, maxit=2)
    msgs = comm.allgather((e.value.code, str(e.value), e.value.result.iterations))
    assert everywhere(e.value.code == hspmv.ERR_NOCONV and len(set(msgs)) == 1 and e.value.x.shape == b.shape)
    with pytest.raises(ValueError) as e:  # a wrong length on one rank: every rank raises
        hspmv.cg(D, b if comm.rank != comm.size - 1 else b[:-1])
    assert everywhere(f"rank {comm.size - 1}" in str(e.value))


def test_read_errors_agree(tmp_path_factory):
    d = comm.bcast(str(tmp_path_factory.mktemp("bad")) if comm.rank == 0 else None)
    bad = os.path.join(d, "bad.mtx")
    if comm.rank == 0:
        with open(bad, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n")
    comm.Barrier()
    with pytest.raises(hspmv.Error) as e:
        hspmv.DistMatrix.read(bad)
    msgs = comm.allgather((e.value.code, str(e.value)))
    assert everywhere(len(set(msgs)) == 1 and e.value.code == hspmv.ERR_FORMAT and "bad.mtx" in str(e.value))
    with pytest.raises(ValueError):
        hspmv.DistMatrix.read(LAP, partition="nosuch")
    D = hspmv.DistMatrix.read(LAP, threads=1)
    with pytest.raises(ValueError) as e:  # a wrong whole vector on rank 0: every rank raises
        D.scatter(np.ones(3) if comm.rank == 0 else None)
    assert everywhere("rank 0" in str(e.value))


def unsupported_skip(fn):
    """fn(), or a skip on every rank while the library answers ERR_UNSUPPORTED."""
    try:
        return fn()
    except hspmv.Error as e:
        if everywhere(e.code == hspmv.ERR_UNSUPPORTED):
            pytest.skip(f"not in this library yet: {e}")
        raise


@pytest.mark.parametrize("halo", ["node", "p2p"])
def test_transposed_product(halo):
    A = whole(NONSYM)
    D = hspmv.DistMatrix.read(NONSYM, threads=1, halo=halo)
    v = np.random.default_rng(11).uniform(-1, 1, A.shape[0])
    vl = D.scatter(v if comm.rank == 0 else None, "y")
    yt = unsupported_skip(lambda: D.rmatvec(vl))
    assert everywhere(yt.shape == (D.local_shape[1],))
    got = D.gather(yt, "x")
    assert everywhere(comm.rank != 0 or within_bound(got, A.T.tocsr(), v, np.float64)[0])


@pytest.mark.parametrize("order", ["C", "F"])
def test_block_product(order):
    A = whole(NONSYM)
    D = hspmv.DistMatrix.read(NONSYM, threads=1)
    lo, hi = D.info["col_begin"], D.info["col_end"]
    X = np.asarray(np.random.default_rng(12).uniform(-1, 1, (A.shape[1], 3)), order=order)
    Y = unsupported_skip(lambda: D.matmat(np.asarray(X[lo:hi], order=order)))
    ok = Y.shape == (D.local_shape[0], 3)
    for j in range(3):
        yj = D.gather(np.ascontiguousarray(Y[:, j]), "y")
        ok = ok and (comm.rank != 0 or within_bound(yj, A, X[:, j], np.float64)[0])
    assert everywhere(ok)


def one_row_on_the_last_rank():
    """A tridiagonal matrix whose last rank holds one row (and one x entry):
    its part of a Fortran-ordered block is C-contiguous too."""
    n = 40 * (comm.size - 1) + 1
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    lo, hi = (40 * comm.rank, 40 * (comm.rank + 1)) if comm.rank < comm.size - 1 else (n - 1, n)
    return T, lo, hi, hspmv.DistMatrix(T[lo:hi], threads=1)


def test_block_layout_agreed_when_a_rank_holds_one_row():
    import faulthandler

    faulthandler.dump_traceback_later(120, exit=True)  # a hang (ranks' layouts differing) fails, not waits
    try:
        T, lo, hi, D = one_row_on_the_last_rank()
        X = np.asfortranarray(np.random.default_rng(13).uniform(-1, 1, (T.shape[1], 3)))
        Xl = np.asfortranarray(X[lo:hi])
        Y = unsupported_skip(lambda: D.matmat(Xl))
        ref = (T @ X)[lo:hi]
        ok = Y.shape == (hi - lo, 3) and np.abs(Y - ref).max() <= 1e-12
        out = np.empty((hi - lo, 3), order="F")
        D.matmat(Xl, out=out)
        ok = ok and np.abs(out - ref).max() <= 1e-12
        Yc = D @ np.ascontiguousarray(Xl)  # every rank C (or both): C
        ok = ok and np.abs(Yc - ref).max() <= 1e-12
        assert everywhere(ok)
        if comm.size >= 3:  # ranks 0 and 1 hold 40 rows: outs of both orders are refused on every rank
            bad = np.empty((hi - lo, 3), order="F" if comm.rank == 1 else "C")
            with pytest.raises(ValueError, match="C order on some ranks and Fortran order on others"):
                D.matmat(Xl, out=bad)
        D.free()
    finally:
        faulthandler.cancel_dump_traceback_later()


# ---- reorder: a shuffled mesh renumbered for locality, vectors kept in the file's order ----

def shuffled_mesh_file(tmp_path_factory, n=20):
    """A 5-point Laplacian on an n x n grid, rows and columns shuffled, written by rank 0; (path, matrix)."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A = (sp.kron(sp.identity(n), T) + sp.kron(T, sp.identity(n))).tocsr()
    p = np.random.default_rng(17).permutation(A.shape[0])
    B = A[p][:, p].tocsr()
    path = None
    if comm.rank == 0:
        import scipy.io

        path = os.path.join(str(tmp_path_factory.mktemp("reorder")), "shuffled.mtx")
        scipy.io.mmwrite(path, B, symmetry="general")
    path = comm.bcast(path)
    return path, B


def reordered_read(path, reorder, dtype=np.float64, **kw):
    try:
        return hspmv.DistMatrix.read(path, reorder=reorder, dtype=dtype, threads=1, **kw)
    except hspmv.Error as e:
        if reorder == "nd" and everywhere(e.code == hspmv.ERR_UNSUPPORTED):
            pytest.skip("built without METIS: nd is refused")
        raise


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("reorder,halo,read", [("none", "auto", "root"), ("rcm", "node", "root"), ("rcm", "p2p", "root"),
                                               ("rcm", "node", "parallel"), ("rcm", "p2p", "parallel"),
                                               ("nd", "auto", "root"), ("auto", "auto", "root"),
                                               ("auto", "auto", "parallel")])
def test_reordered_products_in_the_file_order(tmp_path_factory, reorder, halo, read, dtype):
    path, B = shuffled_mesh_file(tmp_path_factory)
    B = B.astype(dtype)
    D = reordered_read(path, reorder, dtype, halo=halo, read=read)
    i = D.info
    ok = D.reorder == i["reorder"] and D.reorder in ("none", "rcm", "nd")
    ok = ok and (reorder == "none" or D.reorder == reorder or reorder == "auto")
    rng = np.random.default_rng(23)
    x = rng.uniform(-1, 1, B.shape[1]).astype(dtype)
    y = D.gather(D @ D.scatter(x if comm.rank == 0 else None, "x"), "y")
    ok = ok and (comm.rank != 0 or within_bound(y, B, x, dtype)[0])
    yt = unsupported_skip(lambda: D.rmatvec(D.scatter(x if comm.rank == 0 else None, "y")))
    yt = D.gather(yt, "x")  # collective: outside the condition below
    ok = ok and (comm.rank != 0 or within_bound(yt, B.T.tocsr(), x, dtype)[0])
    # a block: this rank's rows of X in the distributed order (file_index), each column gathered back
    X = rng.uniform(-1, 1, (B.shape[1], 2)).astype(dtype)
    Y = unsupported_skip(lambda: D.matmat(np.ascontiguousarray(X[D.file_index("x")])))
    for j in range(2):
        yj = D.gather(np.ascontiguousarray(Y[:, j]), "y")
        ok = ok and (comm.rank != 0 or within_bound(yj, B, X[:, j], dtype)[0])
    if reorder != "none":
        ok = ok and f"reorder {D.reorder}" in repr(D)
        # the file index is a permutation, and not the identity once reordered
        allrows = np.concatenate(comm.allgather(D.file_index("y")))
        ok = ok and sorted(allrows.tolist()) == list(range(B.shape[0]))
        ok = ok and (D.reorder == "none") == bool((allrows == np.arange(B.shape[0])).all())
    assert everywhere(ok)


@pytest.mark.parametrize("read", ["root", "parallel"])
def test_reordered_rcm_narrows_the_bandwidth(tmp_path_factory, read):
    path, B = shuffled_mesh_file(tmp_path_factory)
    i = reordered_read(path, "rcm", read=read).info
    C = B.tocoo()
    bw = int(np.abs(C.row.astype(np.int64) - C.col).max())
    assert everywhere(i["reorder"] == "rcm" and i["bandwidth_before"] == bw and i["bandwidth_after"] <= 2 * 20 + 2)


def test_reorder_auto_keeps_an_ordered_file():
    D = hspmv.DistMatrix.read(LAP, reorder="auto", threads=1)
    i = D.info
    assert everywhere(D.reorder == "none" and i["bandwidth_before"] == i["bandwidth_after"] > 0)
    assert product_ok(D, whole(LAP), np.float64)


def test_reordered_cg_gives_the_unreordered_x(tmp_path_factory):
    path, B = shuffled_mesh_file(tmp_path_factory)
    xs = np.random.default_rng(29).uniform(-1, 1, B.shape[1])
    bs = B @ xs
    got = {}
    for reorder, read in (("none", "root"), ("rcm", "root"), ("rcm", "parallel")):
        D = reordered_read(path, reorder, read=read)
        x, res = hspmv.cg(D, D.scatter(bs if comm.rank == 0 else None, "y"), tol=1e-10, maxit=2000)
        got[reorder, read] = (D.gather(x, "y"), res.iterations)
    x0, i0 = got["none", "root"]
    ok = True
    for key in (("rcm", "root"), ("rcm", "parallel")):
        x1, i1 = got[key]
        ok = ok and abs(i1 - i0) <= 2
        if comm.rank == 0:
            ok = ok and np.linalg.norm(x1 - x0) <= 1e-8 * np.linalg.norm(x0) and np.abs(x1 - xs).max() < 1e-6
    assert everywhere(ok)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reorder_from_each_ranks_rows(tmp_path_factory, dtype):
    """Each rank's own rows (hspmv_dist_create): the pattern gathered and ordered, products in the caller's order;
    ncols_local given with reorder is refused on every rank alike."""
    _, B = shuffled_mesh_file(tmp_path_factory)
    B = B.astype(dtype)
    lo, hi = B.shape[0] * comm.rank // comm.size, B.shape[0] * (comm.rank + 1) // comm.size
    D = hspmv.DistMatrix(B[lo:hi], reorder="rcm", threads=1)
    assert everywhere(D.reorder == "rcm" and D.info["bandwidth_after"] < D.info["bandwidth_before"] // 4)
    assert product_ok(D, B, dtype)
    with pytest.raises(hspmv.Error) as e:
        hspmv.DistMatrix(B[lo:hi], ncols_local=hi - lo, reorder="rcm", threads=1)
    msgs = comm.allgather((e.value.code, str(e.value)))
    assert everywhere(e.value.code == hspmv.ERR_UNSUPPORTED and len(set(msgs)) == 1 and "ncols_local" in str(e.value))
